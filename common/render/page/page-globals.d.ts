// page-globals.d.ts - what the page scripts find already defined (for tsc only; never
// embedded): the SVG's data, written by svg-write.c before svg.js, and the viewer's
// window.flamekit (viewer.js), which the heat map page mounts.

/** The SVG's settings (svg-write.c put_js_config). */
declare var fkC: {
  w: number; xpad: number; fh: number; y0: number; dy: number; fs: number; fw: number;
  tm: number; fac: number; tl: number; diff: number; neg: number; S: number; sc: string;
  cn: string; nt: string;
};
/** Frame names (index 0 is the root's). */
declare var fkN: string[];
/** Per frame, fkC.S numbers: name index, depth, width, offset from the parent[, delta]. */
declare var fkF: number[];

/** A tree of the viewer: typed arrays in preorder (viewer.js finishTree). */
interface FkTree {
  n: number; cols: number; name: Int32Array | Uint16Array; depth: Int32Array | Uint8Array | Uint16Array; end: Int32Array;
  self0: Float64Array | Int32Array; self1: Float64Array | null; tot?: Float64Array | Uint32Array; tot0?: Float64Array | null;
}
/** The graph a viewer draws (what describe is given). */
interface FkGraph { tree: FkTree; zoom: number; }
/** The parts of a Viewer the heat map page uses. */
interface FkViewer {
  W: number; tree: FkTree; names: string[]; draw(): void; describe(g: FkGraph, n: number): string;
  describeParts(g: FkGraph, n: number): string[];
}
/** The scripting object of a mounted viewer (viewer.js api()). */
interface FkApi {
  viewer: FkViewer;
  set(o: object): void;
  setTree(t: FkTree): void;
}
interface Window {
  flamekit: {
    finishTree(t: FkTree): FkTree & { tot: Float64Array };
    mount(root: HTMLElement, o: object): FkApi;
  };
  fkheatmap: { counts(n: number): { a: number, b: number } | null };
}
declare var flamekit: Window['flamekit'];
/** The count decoder of the pages (counts.js, embedded before them): code 2v is the count v,
 * code 2i+1 entry i of the page's floats. */
declare function fkCount(code: number, floats: number[]): number;
