// The editor's results: the server renders the panel (app/progress/panel.py, the same one the
// history page shows) and this swaps it in. The browser adds only what must run here: line
// references that move the editor's cursor, and the hint ladder's "More help" buttons.

// The server's answer, as nodes of this document (parsed inert: no script in it runs).
async function fetchPanel(url) {
  const response = await fetch(url, { cache: "no-store", credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return new DOMParser().parseFromString(await response.text(), "text/html");
}

// The hint ladder: after the nudge (test.hint), each press asks the server for the next rung,
// the concept with its lesson section, then the API. The server records the reveal.
async function askRung(hintsUrl, check, rung) {
  const url = `${hintsUrl}${encodeURIComponent(check)}/${rung}`;
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: "{}",
    credentials: "same-origin",
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// Feedback marks code with backticks; those spans become <code>, the rest plain text.
function richText(tag, className, text) {
  const node = el(tag, className);
  String(text).split(/`([^`\n]+)`/).forEach((part, index) => {
    if (part) node.append(index % 2 ? el("code", null, part) : document.createTextNode(part));
  });
  return node;
}

function rungNode(found, strings) {
  const node = richText("p", `test-hint hint-rung hint-${found.kind === "api" ? "api" : "concept"}`, found.text);
  node.prepend(el("strong", null, `${strings[`hint_${found.kind}`] || strings.hint}: `));
  // Only a same-origin path from the server becomes a link: the href is never learner-derived.
  if (typeof found.lesson_url === "string" && found.lesson_url.startsWith("/")) {
    const link = el("a", "hint-lesson", found.lesson_title || strings.hint_lesson);
    link.href = found.lesson_url;
    node.append(" ", el("span", null, `${strings.hint_lesson}: `), link);
  }
  node.tabIndex = -1; // the focus goes to the new rung when the button is gone
  return node;
}

// The button keeps the focus while a rung loads (aria-disabled, never disabled: a disabled
// button drops the focus to <body>); the last rung takes the focus when the button goes.
function ladder(button, strings, hintsUrl) {
  let next = 2;
  let busy = false;
  button.addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    button.setAttribute("aria-disabled", "true");
    try {
      const found = await askRung(hintsUrl, button.dataset.check, next);
      const rung = rungNode(found, strings);
      button.before(rung);
      next += 1;
      if (!found.more) {
        button.remove();
        rung.focus();
      }
    } catch {
      button.textContent = strings.hint_failed;
    } finally {
      busy = false;
      button.removeAttribute("aria-disabled");
    }
  });
}

// Swaps in a graded submission's panel and returns the lines to mark; the learner's standing
// on the exercise (state, best score) comes with it and replaces the header's.
export async function showPanel(container, url, strings, onLine) {
  const found = await fetchPanel(url);
  const panel = found.querySelector(".results-panel");
  if (!panel) throw new Error("no panel in the answer");
  container.replaceChildren(document.adoptNode(panel));
  const standing = found.getElementById("exercise-progress");
  const header = document.getElementById("exercise-progress");
  if (standing && header) header.replaceWith(document.adoptNode(standing));
  for (const button of panel.querySelectorAll("button.line-link[data-line]")) {
    button.addEventListener("click", () => onLine(Number(button.dataset.line)));
  }
  const hintsUrl = container.closest("[data-hints-url]")?.dataset.hintsUrl || "";
  for (const button of panel.querySelectorAll("button.hint-more[data-check]")) {
    if (hintsUrl) ladder(button, strings, hintsUrl);
    else button.remove();
  }
  return (panel.dataset.failingLines || "").split(" ").filter(Boolean).map(Number);
}

export function showProblem(container, message) {
  container.replaceChildren(el("p", "verdict error", message));
}
