// The exercise page's editor: CodeMirror with the starter or the saved draft, Submit,
// progress while the grader works, and feedback with the failing lines marked.
import { basicSetup } from "codemirror";
import { indentWithTab } from "@codemirror/commands";
import { indentUnit } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";

import {
  clearDraft, debounce, loadDraft, newerDraft, saveDraft, saveServerDraft,
} from "./drafts.js";
import { failingLines, goToLine, markFailingLines } from "./failing-lines.js";
import { RequestError, submitCode, waitForResult } from "./grading.js";
import { failingLinesOf, showProblem, showResult } from "./results.js";
import { setUpRun } from "./run.js";

const STEPS = ["queued", "running", "done"];

function readJson(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

function showProgress(list, status) {
  list.hidden = false;
  const at = STEPS.indexOf(status);
  for (const item of list.querySelectorAll("li")) {
    const index = STEPS.indexOf(item.dataset.step);
    item.classList.toggle("active", index === at && status !== "done");
    item.classList.toggle("complete", index < at || status === "done");
  }
  list.dataset.status = status;
}

function setUp(root) {
  const strings = readJson("editor-strings");
  const starter = readJson("starter-code");
  const exerciseId = root.dataset.exercise;
  const scope = root.dataset.draftScope || "";
  const draftUrl = root.dataset.draftUrl;
  const submitButton = document.getElementById("submit-button");
  const resetButton = document.getElementById("reset-button");
  const progress = document.getElementById("progress");
  const results = document.getElementById("results");
  const draftNote = document.getElementById("draft-note");
  let busy = false;

  // The server's draft wins over an older one in this browser: the learner may have moved on
  // on another device.
  const chosen = newerDraft(loadDraft(scope, exerciseId), readJson("server-draft"));
  const draft = chosen ? chosen.code : null;
  // Code equal to the starter is no draft: storing it would only hide later starter updates.
  const save = debounce(
    (code) => (code === starter ? clearDraft(scope, exerciseId) : saveDraft(scope, exerciseId, code)),
    400,
  );
  // The server is told less often than localStorage: one request per longer pause.
  const saveRemote = debounce(
    (code, options) => (draftUrl ? saveServerDraft(draftUrl, code, options) : null),
    1500,
  );
  // Leaving the page sends what the pause has not sent yet.
  window.addEventListener("pagehide", () => saveRemote.flush({ keepalive: true }));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") saveRemote.flush({ keepalive: true });
  });

  const view = new EditorView({
    parent: document.getElementById("editor"),
    state: EditorState.create({
      doc: draft ?? starter,
      extensions: [
        basicSetup,
        python(),
        indentUnit.of("    "),
        EditorView.lineWrapping, // the panel is narrow; a hidden line end hides mistakes
        keymap.of([indentWithTab]),
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { submit(); return true; } }])),
        failingLines,
        // The page's CSP allows injected styles only with this response's nonce.
        EditorView.cspNonce.of(root.dataset.cspNonce || ""),
        EditorView.contentAttributes.of({ "aria-label": submitButton.closest("section").getAttribute("aria-label") }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) {
            const code = update.state.doc.toString();
            save(code);
            saveRemote(code);
          }
        }),
      ],
    }),
  });
  root.classList.add("editor-ready");

  if (draft !== null && draft !== starter) {
    draftNote.textContent = strings.draft_restored;
    draftNote.hidden = false;
  }

  const onLine = (line) => goToLine(view, line);

  async function submit() {
    if (busy) return;
    busy = true;
    submitButton.disabled = true;
    submitButton.textContent = strings.submitting;
    results.replaceChildren();
    markFailingLines(view, []);
    try {
      const code = view.state.doc.toString();
      saveDraft(scope, exerciseId, code);
      saveRemote.cancel();
      if (draftUrl) saveServerDraft(draftUrl, code); // not awaited: grading need not wait
      const sent = await submitCode(root.dataset.submitUrl, code, document.documentElement.lang);
      showProgress(progress, sent.status);
      const result = await waitForResult(sent.id, (status) => showProgress(progress, status));
      showResult(results, result, strings, onLine);
      markFailingLines(view, failingLinesOf(result));
    } catch (error) {
      const refused = error instanceof RequestError && error.message !== "timeout";
      showProblem(results, refused ? `${strings.request_error} ${error.message}` : strings.network_error);
      progress.hidden = true;
    } finally {
      busy = false;
      submitButton.disabled = false;
      submitButton.textContent = strings.submit;
    }
  }

  function reset() {
    if (!window.confirm(strings.reset_confirm)) return;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: starter } });
    save.cancel();
    saveRemote.cancel();
    clearDraft(scope, exerciseId);
    if (draftUrl) saveServerDraft(draftUrl, starter); // the server forgets a starter "draft"
    markFailingLines(view, []);
    draftNote.hidden = true;
  }

  submitButton.addEventListener("click", submit);
  resetButton.addEventListener("click", reset);
  submitButton.disabled = false;
  resetButton.disabled = false;

  // A small handle for automation (the browser test) and the console; not used by the page.
  window.laipEditor = {
    getCode: () => view.state.doc.toString(),
    setCode: (code) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } }),
  };
  setUpRun(() => view.state.doc.toString());
}

const root = document.getElementById("workbench");
if (root && root.dataset.submitUrl) setUp(root);
