// viewer-types.d.ts - for tsc only (never embedded): the viewer's instance as its methods
// see it (viewer/*.js, joined into one function scope by the build). Members named here are
// typed; the others (caches and handles set along the way) are any.

/** The viewer's state: what the URL keeps (04-keys-url.js). */
interface FkState {
  view: string; icicle: boolean; left: boolean; zoom: string[]; search: string; ic: boolean;
  sandwich: string; transforms: string[][]; dark: boolean; sort: string; split: string; shape: string;
}
/** A Viewer (03-viewer.js) as `this` in its methods. */
interface FkV {
  [k: string]: any;
  tree: FkTree; base: FkTree; names: string[]; colors: string[]; rgb: number[];
  state: FkState; meta: any; root: HTMLElement; main: HTMLElement; search: HTMLInputElement;
}
