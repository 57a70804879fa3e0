// A task of its own for what comes next: the page's thread is free in between (for input, and to paint). Its own
// module, so that posembed/components exports it without loading anything else.
export const nextTask = () => new Promise((resolve) => { setTimeout(resolve, 0); });
