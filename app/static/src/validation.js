// The validation page while checks run: the table is fetched again every few seconds and swapped
// in place, and a polite live region says when they have finished. A meta refresh once reloaded
// the whole page, sending a screen-reader user back to its top every 3 s (issue 34).
const EVERY_MS = 3000;

function table(root) {
  return root.querySelector("[data-validation-table]");
}

async function poll(note, status) {
  let fresh = null;
  try {
    const response = await fetch(window.location.href, { cache: "no-store", credentials: "same-origin" });
    if (response.ok) fresh = new DOMParser().parseFromString(await response.text(), "text/html");
  } catch {
    // A dropped request: the next poll tries again.
  }
  const next = fresh && table(fresh);
  if (next) table(document).replaceWith(document.adoptNode(next));
  if (fresh && !fresh.getElementById("validation-refresh")) {
    note.remove();
    status.textContent = status.dataset.doneText;
    return;
  }
  window.setTimeout(() => poll(note, status), EVERY_MS);
}

const note = document.getElementById("validation-refresh");
const status = document.getElementById("validation-status");
if (note && status) window.setTimeout(() => poll(note, status), EVERY_MS);
