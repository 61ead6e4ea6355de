// Keeps a learner's draft per exercise in localStorage (a reload loses nothing) and on the
// server (another device resumes where the learner stopped). Local keys carry a scope that
// differs per learner, so a shared browser never shows one learner's draft to another.
const PREFIX = "laip:draft:";

function storage() {
  try {
    return window.localStorage; // may throw when storage is disabled
  } catch {
    return null;
  }
}

export function draftKey(scope, exerciseId) {
  return `${PREFIX}${scope}:${exerciseId}`;
}

// Returns { code, at } (at: milliseconds since the epoch) or null.
export function loadDraft(scope, exerciseId) {
  const store = storage();
  const raw = store ? store.getItem(draftKey(scope, exerciseId)) : null;
  if (raw === null) return null;
  try {
    const draft = JSON.parse(raw);
    return typeof draft.code === "string" ? { code: draft.code, at: Number(draft.at) || 0 } : null;
  } catch {
    return null;
  }
}

export function saveDraft(scope, exerciseId, code) {
  const store = storage();
  if (!store) return;
  try {
    store.setItem(draftKey(scope, exerciseId), JSON.stringify({ code, at: Date.now() }));
  } catch {
    // Quota exceeded: the draft is a convenience, the editor keeps working.
  }
}

export function clearDraft(scope, exerciseId) {
  const store = storage();
  if (store) store.removeItem(draftKey(scope, exerciseId));
}

// The newer of the browser's and the server's draft; either may be null.
export function newerDraft(local, server) {
  if (!local) return server;
  if (!server) return local;
  return local.at >= server.at ? local : server;
}

// Sends the draft to the server. The server keeps no draft equal to the starter.
// keepalive lets the last save finish while the page is being left.
export async function saveServerDraft(url, code, { keepalive = false } = {}) {
  try {
    const response = await fetch(url, {
      method: "PUT",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ code }),
      credentials: "same-origin",
      keepalive,
    });
    return response.ok;
  } catch {
    return false; // offline: the local draft still holds the code; the next change retries
  }
}

// Saves at most once per pause in typing; flush() runs a pending call at once.
export function debounce(fn, ms) {
  let timer = null;
  let pending = null;
  const debounced = (...args) => {
    pending = args;
    clearTimeout(timer);
    timer = setTimeout(() => {
      pending = null;
      fn(...args);
    }, ms);
  };
  debounced.flush = (...extra) => {
    if (pending === null) return;
    clearTimeout(timer);
    const args = pending;
    pending = null;
    fn(...args, ...extra);
  };
  debounced.cancel = () => {
    clearTimeout(timer);
    pending = null;
  };
  return debounced;
}
