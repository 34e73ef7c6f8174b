// counts.js - the one count decoder of the pages (flamekit html, the heat map), before
// their scripts: the code 2v is the count v, the code 2i+1 entry i of the page's floats
// (the encoder: common/render/page-counts.c).
/* exported fkCount */
function fkCount(code, floats) { return code % 2 === 0 ? code / 2 : floats[(code - 1) / 2]; }
