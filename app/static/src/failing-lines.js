// Marks the lines that failing checks point at, as CodeMirror line decorations.
import { StateEffect, StateField, RangeSetBuilder } from "@codemirror/state";
import { Decoration, EditorView } from "@codemirror/view";

const setLines = StateEffect.define();
const failingLine = Decoration.line({ class: "cm-failing-line" });

const failingField = StateField.define({
  create: () => Decoration.none,
  update(decorations, tr) {
    // Edits move the marks with the text, so a mark stays on the line it was about.
    decorations = decorations.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(setLines)) decorations = build(tr.state.doc, effect.value);
    }
    return decorations;
  },
  provide: (field) => EditorView.decorations.from(field),
});

function build(doc, lines) {
  const builder = new RangeSetBuilder();
  const wanted = [...new Set(lines)]
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= doc.lines)
    .sort((a, b) => a - b);
  for (const n of wanted) {
    const line = doc.line(n);
    builder.add(line.from, line.from, failingLine);
  }
  return builder.finish();
}

export const failingLines = [failingField];

export function markFailingLines(view, lines) {
  view.dispatch({ effects: setLines.of(lines) });
}

export function goToLine(view, number) {
  if (number < 1 || number > view.state.doc.lines) return;
  const line = view.state.doc.line(number);
  view.dispatch({
    selection: { anchor: line.from, head: line.to },
    effects: EditorView.scrollIntoView(line.from, { y: "center" }),
  });
  view.focus();
}
