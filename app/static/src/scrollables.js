// Boxes that scroll (code, wide tables, diffs, a chart on a phone) take the keyboard focus and
// carry a name, so a keyboard user can scroll them with the arrow keys (WCAG 2.1.1; axe's
// scrollable-region-focusable). Only boxes that overflow now: a short code block is no tab stop.
const BOXES = "pre, .prose table, .table-scroll, .code-text, .diff, .result-figure, .chart-scroll";
const MARK = "scrollFocus"; // data-scroll-focus: this script gave the box its tabindex

function names() {
  const node = document.getElementById("scroll-names");
  return node ? JSON.parse(node.textContent) : {};
}

function nameOf(box, words) {
  if (box.matches(".diff")) return words.diff;
  if (box.matches("table, .table-scroll")) return words.table;
  if (box.matches(".result-figure, .chart-scroll")) return words.chart;
  return words.code;
}

function scrolls(box) {
  const style = window.getComputedStyle(box);
  const sideways = /auto|scroll/.test(style.overflowX) && box.scrollWidth > box.clientWidth + 1;
  const down = /auto|scroll/.test(style.overflowY) && box.scrollHeight > box.clientHeight + 1;
  return sideways || down;
}

export function markScrollables(root = document) {
  const words = names();
  for (const box of root.querySelectorAll(BOXES)) {
    const marked = Boolean(box.dataset[MARK]);
    if (scrolls(box)) {
      if (marked || box.hasAttribute("tabindex")) continue;
      box.tabIndex = 0;
      box.dataset[MARK] = "1";
      // A table and a figure keep their own role (a figure is named by its caption).
      if (!box.matches("table, figure")) box.setAttribute("role", "region");
      if (!box.matches("figure") && !box.hasAttribute("aria-label")) {
        box.setAttribute("aria-label", nameOf(box, words) || "");
        box.dataset.scrollNamed = "1";
      }
    } else if (marked) {
      box.removeAttribute("tabindex");
      if (!box.matches("table, figure")) box.removeAttribute("role");
      if (box.dataset.scrollNamed) box.removeAttribute("aria-label");
      delete box.dataset[MARK];
      delete box.dataset.scrollNamed;
    }
  }
}

// Once per frame at most: a resize, a rotated phone, or new content (results, history entries).
let pending = false;
function soon() {
  if (pending) return;
  pending = true;
  window.requestAnimationFrame(() => {
    pending = false;
    markScrollables();
  });
}

window.addEventListener("resize", soon);
new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
markScrollables();
