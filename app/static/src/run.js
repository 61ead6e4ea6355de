// "Run" on the exercise page: sends the editor's code to /api/exercises/<id>/run (no tests,
// no grade), which queues a Run (202); then polls /api/runs/<id> like a grading until it is
// done, and shows what it printed, or where it stopped. "Stop" ends a queued or running Run.
// Text only: learner output is never parsed as HTML.
import { RequestError } from "./grading.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function show(panel, { status, output, traceback, silent }) {
  panel.hidden = false;
  panel.querySelector(".run-status").textContent = status;
  panel.querySelector(".run-output").textContent = output;
  const tb = panel.querySelector(".run-traceback");
  tb.textContent = traceback || "";
  tb.hidden = !traceback;
  // A run that printed nothing (function-only code) shows what to add to try the functions.
  const sample = panel.querySelector(".run-sample");
  if (sample) sample.hidden = !silent;
}

function describe(panel, result) {
  const seconds = Number(result.duration_s || 0).toFixed(2);
  const output = result.output || panel.dataset.empty;
  if (result.status === "ok") {
    return { status: panel.dataset.ok.replace("{s}", seconds), output, silent: !result.output };
  }
  const error = result.error || {};
  if (error.kind === "stopped") return { status: error.message || panel.dataset.stoppedByYou, output };
  const stopped = panel.dataset.stopped.replace("{s}", seconds);
  return { status: `${stopped} ${error.message || ""}`.trim(), output, traceback: error.traceback };
}

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return {};
  }
}

async function send(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  return { response, body: await readJson(response) };
}

// Polls quickly at first (a warm Run answers in under a second), then backs off; every poll
// reports, so "queued" and the running seconds stay current.
async function waitForRun(id, onStatus, cancelled) {
  const url = `/api/runs/${encodeURIComponent(id)}`;
  let delay = 300;
  for (;;) {
    const response = await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" });
    const body = await readJson(response);
    if (!response.ok) throw new RequestError(body.message || `HTTP ${response.status}`);
    if (body.status === "done") return body.result || {};
    if (cancelled()) return null;
    onStatus(body);
    await sleep(delay);
    delay = Math.min(delay * 1.5, 1500);
  }
}

export function setUpRun(getCode) {
  const button = document.getElementById("run-button");
  const stopButton = document.getElementById("stop-button");
  const panel = document.getElementById("run-panel");
  if (!button || !panel || !button.dataset.runUrl) return;
  const label = button.textContent;
  let current = null; // the id of the Run this page waits for
  let generation = 0; // a newer Run makes an older poll loop end quietly

  function idle() {
    button.disabled = false;
    button.textContent = label;
    if (stopButton) {
      stopButton.hidden = true;
      stopButton.disabled = false;
    }
  }

  async function stop() {
    if (!current || !stopButton) return;
    stopButton.disabled = true;
    try {
      const { response, body } = await send(`/api/runs/${encodeURIComponent(current)}/stop`, {});
      if (response.ok && body.status === "done" && body.result) {
        generation += 1; // the poll loop ends; show the stopped Run now
        current = null;
        show(panel, describe(panel, body.result));
        panel.dataset.state = "error";
        idle();
      } else if (!response.ok) {
        stopButton.disabled = false;
      }
    } catch {
      stopButton.disabled = false;
    }
  }

  async function run() {
    if (current) return;
    const mine = ++generation;
    button.disabled = true;
    button.textContent = panel.dataset.running;
    panel.dataset.state = "running";
    show(panel, { status: panel.dataset.queued, output: "" });
    // On a phone the panel opens far below the editor (issue 34: 1,101 px below the fold): it
    // comes into view; the focus stays on Run and the live panel says what happens.
    const box = panel.getBoundingClientRect();
    if (box.top > window.innerHeight || box.bottom < 0) panel.scrollIntoView({ block: "nearest" });
    try {
      const { response, body } = await send(button.dataset.runUrl, {
        code: getCode(),
        lang: document.documentElement.lang,
      });
      if (response.status !== 202) {
        show(panel, { status: `${panel.dataset.failed} ${body.message || `HTTP ${response.status}`}`, output: "" });
        panel.dataset.state = "refused";
        idle();
        return;
      }
      current = body.id;
      if (stopButton) stopButton.hidden = false;
      const result = await waitForRun(body.id, (state) => {
        if (mine !== generation) return;
        const status = state.status === "running"
          ? panel.dataset.runningFor.replace("{s}", Number(state.elapsed_s || 0).toFixed(0))
          : panel.dataset.queued;
        show(panel, { status, output: "" });
      }, () => mine !== generation);
      if (mine !== generation || result === null) return; // stopped meanwhile: already shown
      current = null;
      show(panel, describe(panel, result));
      panel.dataset.state = result.status === "ok" ? "ok" : "error";
      idle();
    } catch (error) {
      if (mine !== generation) return;
      current = null;
      const why = error instanceof RequestError ? error.message : panel.dataset.network;
      show(panel, { status: `${panel.dataset.failed} ${why}`, output: "" });
      panel.dataset.state = "refused";
      idle();
    }
  }

  button.addEventListener("click", run);
  if (stopButton) stopButton.addEventListener("click", stop);
  button.disabled = false;
}
