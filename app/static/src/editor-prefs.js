// The editor's look: colours from the site's theme variables (light or dark, whichever the page
// shows), tokens in the highlighted code's palette, and a text size the learner chooses.
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { EditorView } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

// Tokens get the class names Pygments gives them, so app/static/css/pygments.css colours the
// editor as it colours lesson code: one palette, checked for 4.5:1 contrast in both themes.
const pygmentsClasses = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword], class: "k" },
  { tag: t.operatorKeyword, class: "ow" },
  { tag: [t.bool, t.null], class: "kc" },
  { tag: t.self, class: "bp" },
  { tag: t.docString, class: "sd" },
  { tag: [t.string, t.special(t.string)], class: "s2" },
  { tag: t.escape, class: "se" },
  { tag: t.number, class: "m" },
  { tag: [t.comment, t.lineComment], class: "c1" },
  { tag: t.function(t.definition(t.variableName)), class: "nf" },
  { tag: t.definition(t.className), class: "nc" },
  { tag: t.meta, class: "nd" },
  { tag: [t.operator, t.arithmeticOperator, t.compareOperator, t.updateOperator, t.bitwiseOperator], class: "o" },
]);

// CodeMirror's own parts (gutters, cursor, selection, panels, completion list) in the
// site's variables: they change with <html data-theme> without rebuilding the editor.
const siteColours = EditorView.theme({
  "&": { backgroundColor: "var(--code-wash)", color: "var(--ink)" },
  ".cm-content": { caretColor: "var(--ink)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--ink)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--editor-selection)" },
  ".cm-gutters": { backgroundColor: "var(--wash)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "var(--editor-active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--editor-active-line)", color: "var(--ink)" },
  ".cm-failing-line": { backgroundColor: "var(--failing-line)" },
  "&.cm-focused .cm-matchingBracket": { backgroundColor: "var(--editor-selection)", outline: "1px solid var(--muted)" },
  ".cm-panels": { backgroundColor: "var(--wash)", color: "var(--ink)" },
  ".cm-panels input, .cm-panels button": { color: "var(--ink)", backgroundColor: "var(--paper)" },
  ".cm-tooltip": { backgroundColor: "var(--paper)", color: "var(--ink)", border: "1px solid var(--line)" },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": { backgroundColor: "var(--accent)", color: "var(--accent-ink)" },
  ".cm-foldPlaceholder": { backgroundColor: "var(--wash)", color: "var(--muted)", border: "1px solid var(--line)" },
});

export const themedEditor = [
  siteColours,
  syntaxHighlighting(pygmentsClasses),
  EditorView.editorAttributes.of({ class: "highlight" }), // pygments.css rules are under .highlight
];

const SIZE_KEY = "laip:editor-font-size";
export const FONT_SIZES = [12, 14, 16, 18, 20, 24];

function storedSize() {
  try {
    const size = Number(window.localStorage.getItem(SIZE_KEY));
    return FONT_SIZES.includes(size) ? size : null;
  } catch {
    return null;
  }
}

// The size control under the editor: applied before the editor is drawn, remembered per browser.
export function setUpFontSize(select, target) {
  const apply = (size) => target.style.setProperty("--editor-font-size", `${size}px`);
  const size = storedSize();
  if (size) {
    select.value = String(size);
    apply(size);
  }
  select.addEventListener("change", () => {
    const chosen = Number(select.value);
    if (!FONT_SIZES.includes(chosen)) return;
    apply(chosen);
    try {
      window.localStorage.setItem(SIZE_KEY, String(chosen));
    } catch {
      // Storage refused: the size holds for this page only.
    }
  });
  select.disabled = false;
}
