// Where the package's own files are. A module names a file beside it as new URL('./file', import.meta.url), which
// bundlers find and copy. A dev server that pre-bundles dependencies (Vite before 8, so Astro 5's and others') moves
// the modules into node_modules/.vite/deps without the files beside them: those are still in
// node_modules/posembed/dist, which the server serves.
// (A module of dist/components/ names '../file', which from there is node_modules/.vite/file.)
const PRE_BUNDLED = /^(.*\/node_modules\/)\.vite\/(?:deps(?:_[^/]*)?\/)?([^/]+)$/;

// The URL of one of the package's files, given as new URL('./file', import.meta.url).
export function packageFile(url) {
  const moved = PRE_BUNDLED.exec(url.pathname);
  return moved ? new URL(`${moved[1]}posembed/dist/${moved[2]}${url.search}`, url) : url;
}
