// Syntax colour for stored code (history and submission pages): the server sends one escaped
// block (app/progress/code_view.py, no per-line cost); the browser parses it with the editor's
// Python grammar and wraps tokens in classed spans. Text only: the code is never read as HTML.
import { classHighlighter, highlightCode } from "@lezer/highlight";
import { parser } from "@lezer/python";

// Past this size the parse costs more than colour is worth on a phone; the text stays plain.
const MAX_CHARS = 100_000;

export function colour(block) {
  if (block.dataset.coloured) return;
  const text = block.textContent;
  if (!text || text.length > MAX_CHARS) return;
  const out = document.createDocumentFragment();
  highlightCode(text, parser.parse(text), classHighlighter, (piece, classes) => {
    if (!classes) {
      out.append(piece);
      return;
    }
    const span = document.createElement("span");
    span.className = classes;
    span.textContent = piece;
    out.append(span);
  }, () => out.append("\n"));
  block.replaceChildren(out);
  block.dataset.coloured = "1";
}

export function colourAll(root = document) {
  for (const block of root.querySelectorAll(".code-view .code-text code")) colour(block);
}

// history.js colours a fragment it fetched when an entry is opened.
window.laipColour = colourAll;
colourAll();
