// A core object (an Embind class instance: the trainer, the word embeddings) owned by a JS object until
// dispose(), or until the owner is collected.
// Frees the core objects of owners dropped without dispose(), once they are collected.
const handleReleaser = new FinalizationRegistry((handle) => handle.delete());

export class CoreHandle {
  #core;
  #handle;

  constructor(core, name, configure) {
    this.#core = core;
    this.#handle = new core.module[name]();
    try {
      core.check(configure(this.#handle));
    } catch (error) {
      this.#handle.delete();
      throw error;
    }
    handleReleaser.register(this, this.#handle, this);
  }

  // The handle and the core, while both live.
  live(what) {
    this.#core.assertLive();
    if (!this.#handle) throw new Error(`this ${what} has been disposed`);
    return { handle: this.#handle, core: this.#core };
  }

  // Runs a call that returns a result object or a { name, message } error, and gives the result.
  call(what, method, ...args) {
    const { handle, core } = this.live(what);
    const result = handle[method](...args);
    if (typeof result?.name === 'string' && typeof result.message === 'string') core.check(result);
    return result;
  }

  get disposed() {
    return this.#handle === null;
  }

  dispose() {
    if (!this.#handle) return;
    handleReleaser.unregister(this);
    this.#handle.delete();
    this.#handle = null;
  }
}
