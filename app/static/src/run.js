// "Run" on the exercise page: sends the editor's code to /api/exercises/<id>/run (no tests,
// no grade, nothing stored) and shows what it printed, or where it stopped. Text only:
// learner output is never parsed as HTML.
function show(panel, { status, output, traceback }) {
  panel.hidden = false;
  panel.querySelector(".run-status").textContent = status;
  panel.querySelector(".run-output").textContent = output;
  const tb = panel.querySelector(".run-traceback");
  tb.textContent = traceback || "";
  tb.hidden = !traceback;
}

function describe(panel, body) {
  const seconds = Number(body.duration_s || 0).toFixed(2);
  const output = body.output || panel.dataset.empty;
  if (body.status === "ok") {
    return { status: panel.dataset.ok.replace("{s}", seconds), output };
  }
  const error = body.error || {};
  const stopped = panel.dataset.stopped.replace("{s}", seconds);
  return { status: `${stopped} ${error.message || ""}`.trim(), output, traceback: error.traceback };
}

export function setUpRun(getCode) {
  const button = document.getElementById("run-button");
  const panel = document.getElementById("run-panel");
  if (!button || !panel || !button.dataset.runUrl) return;
  const label = button.textContent;
  let busy = false;

  async function run() {
    if (busy) return;
    busy = true;
    button.disabled = true;
    button.textContent = panel.dataset.running;
    panel.dataset.state = "running";
    show(panel, { status: panel.dataset.running, output: "" });
    try {
      const response = await fetch(button.dataset.runUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ code: getCode(), lang: document.documentElement.lang }),
        credentials: "same-origin",
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        show(panel, describe(panel, body));
        panel.dataset.state = body.status === "ok" ? "ok" : "error";
      } else {
        show(panel, { status: `${panel.dataset.failed} ${body.message || `HTTP ${response.status}`}`, output: "" });
        panel.dataset.state = "refused";
      }
    } catch {
      show(panel, { status: `${panel.dataset.failed} ${panel.dataset.network}`, output: "" });
      panel.dataset.state = "refused";
    } finally {
      busy = false;
      button.disabled = false;
      button.textContent = label;
    }
  }

  button.addEventListener("click", run);
  button.disabled = false;
}
