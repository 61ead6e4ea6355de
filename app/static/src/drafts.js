// Keeps a learner's draft per exercise in localStorage, so a reload loses nothing.
const PREFIX = "laip:draft:";

function storage() {
  try {
    return window.localStorage; // may throw when storage is disabled
  } catch {
    return null;
  }
}

export function loadDraft(exerciseId) {
  const store = storage();
  return store ? store.getItem(PREFIX + exerciseId) : null;
}

export function saveDraft(exerciseId, code) {
  const store = storage();
  if (!store) return;
  try {
    store.setItem(PREFIX + exerciseId, code);
  } catch {
    // Quota exceeded: the draft is a convenience, the editor keeps working.
  }
}

export function clearDraft(exerciseId) {
  const store = storage();
  if (store) store.removeItem(PREFIX + exerciseId);
}

// Saves at most once per pause in typing.
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
