// The threaded module's glue (pthreads are Node worker_threads there) calls CommonJS's require and reads
// __dirname; the package imports it as an ES module, which has neither, so it passes require in
// (Module.nodeRequire). Inside a pthread worker, the worker script (CommonJS) has set a global require.
var require = Module['nodeRequire'] || globalThis.require;
var __dirname = '';
