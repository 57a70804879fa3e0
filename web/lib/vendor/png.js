// The PNG writer of the command line, bundled like colors.js into dist/vendor/png.js.
export { PNG } from 'pngjs';
