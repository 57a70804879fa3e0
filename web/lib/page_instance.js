// The instance the page's own load() gives, for the elements to draw with rather than fetching a module of their
// own. Not part of the package's API: index.js records it, components/shared.js reads it.
let pageInstance = null;  // the promise of the last one the page asked for; null where that failed

export function recordPageInstance(loading) {
  pageInstance = loading.catch(() => null);
}

// The page's own instance (once loaded, if it lives), else `fallback()`'s.
export async function sharedInstance(fallback) {
  const instance = await pageInstance;
  return instance && !instance.disposed ? instance : fallback();
}
