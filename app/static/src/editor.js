// The exercise page's editor: CodeMirror with the starter or the saved draft, Submit,
// progress while the grader works, and feedback with the failing lines marked.
import { basicSetup } from "codemirror";
import { indentWithTab } from "@codemirror/commands";
import { indentUnit } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { EditorState, Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";

import { setUpFontSize, themedEditor } from "./editor-prefs.js";
import {
  clearDraft, debounce, loadDraft, newerDraft, saveDraft, saveServerDraft,
} from "./drafts.js";
import { failingLines, goToLine, markFailingLines } from "./failing-lines.js";
import { RequestError, submitCode, waitForResult } from "./grading.js";
import { showPanel, showProblem } from "./results.js";
import { setUpRun } from "./run.js";
import { localTime } from "./times.js";

const STEPS = ["queued", "running", "done"];

function readJson(id) {
  return JSON.parse(document.getElementById(id).textContent);
}

// Resets every step before marking the current one: a new submission starts from scratch.
export function showProgress(list, status) {
  list.hidden = false;
  const at = STEPS.indexOf(status);
  for (const item of list.querySelectorAll("li")) {
    const index = STEPS.indexOf(item.dataset.step);
    item.classList.toggle("active", index === at && status !== "done");
    item.classList.toggle("complete", index < at || status === "done");
  }
  list.dataset.status = status;
}

function resetProgress(list) {
  for (const item of list.querySelectorAll("li")) item.classList.remove("active", "complete");
  delete list.dataset.status;
  list.hidden = true;
}

// What the button says while the learner waits: place in the queue, then seconds of grading.
// The server's figure is refreshed on each poll; a local clock ticks between polls.
// While running, "starting" (body.phase) says a sandbox is being started for this job: no
// warm one was free, so it takes seconds longer than usual.
function waitLabel(strings, status, body, since) {
  const ticking = (base) => Math.floor((typeof base === "number" ? base : 0) + (Date.now() - since) / 1000);
  if (status === "queued" && Number.isInteger(body.queue_position)) {
    if (typeof body.waited_s === "number") {
      return strings.queued_waited.replace("{position}", body.queue_position)
        .replace("{seconds}", ticking(body.waited_s));
    }
    return strings.queued_at.replace("{position}", body.queue_position);
  }
  if (status === "running") {
    const text = body.phase === "starting" ? strings.starting_for : strings.running_for;
    return text.replace("{seconds}", ticking(body.elapsed_s));
  }
  return strings[status] || strings.submitting;
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
  // Leaving the page (reload, link, language switch, tab hidden) writes what the pauses have
  // not written yet: localStorage at once, the server with a request that outlives the page.
  const flushAll = () => {
    save.flush();
    saveRemote.flush({ keepalive: true });
  };
  window.addEventListener("pagehide", flushAll);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flushAll();
  });

  setUpFontSize(document.getElementById("editor-font-size"), document.getElementById("editor"));
  const view = new EditorView({
    parent: document.getElementById("editor"),
    state: EditorState.create({
      doc: draft ?? starter,
      extensions: [
        basicSetup,
        python(),
        themedEditor, // the site's light or dark colours, the lesson code's token palette
        indentUnit.of("    "),
        EditorView.lineWrapping, // the panel is narrow; a hidden line end hides mistakes
        keymap.of([indentWithTab]),
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => { submit(); return true; } }])),
        failingLines,
        // The page's CSP allows injected styles only with this response's nonce.
        EditorView.cspNonce.of(root.dataset.cspNonce || ""),
        EditorView.contentAttributes.of({ tabindex: "0", "aria-label": submitButton.closest("section").getAttribute("aria-label"),
          "aria-describedby": "editor-keys" }), // Tab indents here: the note says how to leave
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
  // "Open in the editor" from the history: that submission's code replaces the editor's.
  const restored = readJson("restored-submission");
  const isRestored = Boolean(restored && typeof restored.code === "string");
  if (isRestored) {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: restored.code } });
    draftNote.textContent = strings.restored.replace("{time}", localTime(restored.created_at));
    draftNote.hidden = false;
    // Drop ?restore= so a reload shows the learner's draft rather than restoring again.
    window.history.replaceState(null, "", window.location.pathname);
    // The learner came for this code: on a phone the editor is far below the prompt (issue 34:
    // restore once landed 1,300 px above it), so the note and the editor come into view.
    draftNote.scrollIntoView({ block: "start" });
  }

  const onLine = (line) => goToLine(view, line);

  const nextStep = document.getElementById("next-step");
  const lastNote = document.getElementById("last-note");
  const submitState = document.getElementById("submit-state");

  function showNext(result) {
    nextStep.replaceChildren();
    nextStep.hidden = result.status !== "pass";
    if (nextStep.hidden) return;
    if (root.dataset.nextUrl) {
      const link = document.createElement("a");
      link.className = "button primary";
      link.href = root.dataset.nextUrl;
      link.textContent = strings.next_cta.replace("{title}", root.dataset.nextTitle);
      nextStep.append(link);
    } else {
      nextStep.textContent = strings.lesson_done;
    }
  }

  // Follows one submission until it is graded, saying where it is on the button.
  async function follow(id, firstBody) {
    let status = firstBody.status;
    let body = firstBody;
    let since = Date.now();
    const label = () => {
      const text = waitLabel(strings, status, body, since);
      submitButton.textContent = text;
      submitState.textContent = text;
    };
    label();
    showProgress(progress, status);
    const tick = setInterval(label, 1000);
    try {
      return await waitForResult(id, (nextStatus, nextBody) => {
        status = nextStatus;
        body = nextBody;
        since = Date.now();
        showProgress(progress, status);
        label();
      });
    } finally {
      clearInterval(tick);
      submitState.textContent = "";
    }
  }

  // On a phone the results start below the editor, out of sight: after a submission the verdict
  // scrolls into view and takes the focus (a screen reader reads it). Where it is already in
  // sight (beside the editor on a desktop) the focus stays in the editor.
  function bringVerdictIntoView() {
    const verdict = results.querySelector(".verdict");
    if (!verdict) return;
    const box = verdict.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    verdict.tabIndex = -1;
    verdict.scrollIntoView({ block: "start", behavior: "auto" });
    verdict.focus({ preventScroll: true });
  }

  // The server's panel for this submission (the history page shows the same one), swapped in.
  async function present(sub, result) {
    const url = root.dataset.panelUrl.replace("SUBMISSION", encodeURIComponent(sub.id));
    markFailingLines(view, await showPanel(results, url, strings, onLine));
    showNext(result);
  }

  async function submit() {
    if (busy) return;
    busy = true;
    let graded = false;
    submitButton.disabled = true;
    submitButton.textContent = strings.submitting;
    results.replaceChildren();
    resetProgress(progress);
    nextStep.hidden = true;
    lastNote.hidden = true;
    delete lastNote.dataset.shows;
    markFailingLines(view, []);
    try {
      const code = view.state.doc.toString();
      saveDraft(scope, exerciseId, code);
      save.cancel();
      saveRemote.cancel();
      if (draftUrl) saveServerDraft(draftUrl, code); // not awaited: grading need not wait
      const sent = await submitCode(root.dataset.submitUrl, code, document.documentElement.lang);
      draftNote.hidden = true; // the code is a submission now, no longer a restored draft
      await present(sent, await follow(sent.id, sent));
      graded = true;
    } catch (error) {
      const refused = error instanceof RequestError && error.message !== "timeout";
      showProblem(results, refused ? `${strings.request_error} ${error.message}` : strings.network_error);
      resetProgress(progress);
    } finally {
      busy = false;
      submitButton.disabled = false;
      submitButton.textContent = strings.submit;
    }
    // After the page has settled (the button and the wait note change size as they reset).
    if (graded) window.requestAnimationFrame(bringVerdictIntoView);
  }

  // The note above the results names the submission they belong to, with a link to it.
  function nameSubmission(text, sub) {
    lastNote.textContent = text.trimEnd();
    if (sub.url) {
      const link = document.createElement("a");
      link.href = sub.url;
      link.textContent = strings.open_submission;
      lastNote.append(" (", link, ")");
    }
    lastNote.hidden = false;
  }

  // A restored submission's own feedback beside its code, said to be that one's, with a way
  // back to the latest result (issue 25: the latest's "100 %, SOLVED" once sat beside
  // restored failing code).
  function showRestored(sub, last) {
    nameSubmission(strings.restored_result.replace("{time}", localTime(sub.created_at)), sub);
    lastNote.dataset.shows = "restored";
    present(sub, sub.result).catch(() => showProblem(results, strings.network_error));
    if (!last || last.id === sub.id) return;
    const back = document.createElement("button");
    back.type = "button";
    back.className = "link-button";
    back.id = "show-latest";
    back.textContent = strings.show_latest;
    back.addEventListener("click", () => {
      delete lastNote.dataset.shows;
      markFailingLines(view, []);
      resume(last);
    }, { once: true });
    lastNote.append(" ", back);
  }

  // Coming back to the exercise: the last result is shown again, or still awaited.
  async function resume(last) {
    if (!last) return;
    // The submission's own time, in the learner's zone (it once showed the page-load time).
    nameSubmission(`${strings.last_result} ${localTime(last.created_at)}`, last);
    if (last.status === "done" && last.result) {
      await present(last, last.result).catch(() => showProblem(results, strings.network_error));
      return;
    }
    busy = true;
    submitButton.disabled = true;
    try {
      await present(last, await follow(last.id, last));
    } catch {
      resetProgress(progress);
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

  // The skip link lands in the editor itself, not on the panel around it.
  document.querySelector("a[data-to-editor]")?.addEventListener("click", (event) => {
    event.preventDefault();
    view.focus();
  });
  submitButton.addEventListener("click", submit);
  resetButton.addEventListener("click", reset);
  submitButton.disabled = false;
  resetButton.disabled = false;
  const last = readJson("last-submission");
  if (isRestored && restored.status === "done" && restored.result) showRestored(restored, last);
  else resume(last);

  // A small handle for automation (the browser test) and the console; not used by the page.
  window.laipEditor = {
    getCode: () => view.state.doc.toString(),
    setCode: (code) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } }),
  };
  setUpRun(() => view.state.doc.toString());
}

const root = document.getElementById("workbench");
if (root && root.dataset.submitUrl) setUp(root);
