// History page: a collapsed submission fetches its code and diff (a server-rendered, escaped
// fragment) the first time it is opened, so the page itself never carries more than one code.

async function fill(details) {
  const url = details.dataset.codeUrl;
  const slot = details.querySelector(".code-on-demand");
  if (!url || !slot || details.dataset.codeLoading) return;
  details.dataset.codeLoading = "1";
  try {
    // no-cache: asked again each time, but a graded entry already fetched comes back as 304
    // (its ETag) without the server rendering it again.
    const response = await fetch(url, { cache: "no-cache", credentials: "same-origin" });
    if (!response.ok) throw new Error(String(response.status));
    const fragment = new DOMParser().parseFromString(await response.text(), "text/html");
    const code = fragment.querySelector(".submission-code");
    if (!code) throw new Error("no code in the answer");
    slot.replaceWith(document.adoptNode(code));
    window.laipColour?.(code); // syntax colour (code-colour.js), when it has loaded
    delete details.dataset.codeUrl;
  } catch {
    // The link in the slot still opens the submission's own page.
  } finally {
    delete details.dataset.codeLoading;
  }
}

export function loadCodeOnOpen(root) {
  root.addEventListener("toggle", (event) => {
    const details = event.target;
    if (details instanceof HTMLDetailsElement && details.open && details.dataset.codeUrl) fill(details);
  }, true); // toggle does not bubble: listen while it is captured
}
