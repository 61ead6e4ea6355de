// History and submission pages: a submission still waiting for the grader is followed, and
// its part of the page is replaced by the server-rendered result when grading ends. No reload.
import { waitForResult } from "./grading.js";
import { loadCodeOnOpen } from "./history.js";

async function refresh(node) {
  const id = node.dataset.submission;
  try {
    await waitForResult(id, (status, body) => {
      const badge = node.querySelector(".verdict-badge.pending");
      if (!badge) return;
      if (status === "queued" && Number.isInteger(body.queue_position)) {
        const waited = typeof body.waited_s === "number";
        badge.textContent = ((waited ? node.dataset.waitedText : node.dataset.queuedText) || "")
          .replace("{position}", body.queue_position).replace("{seconds}", Math.floor(body.waited_s || 0));
      } else if (status === "running") {
        // phase "starting": no warm sandbox was free and one is being started for this job.
        const text = body.phase === "starting" ? node.dataset.startingText : node.dataset.runningText;
        badge.textContent = (text || "").replace("{seconds}", Math.floor(body.elapsed_s || 0));
      }
    });
  } catch {
    return; // the page still says "waiting"; a reload will tell
  }
  // The page itself renders the graded result: fetch it and swap in this submission's part.
  const response = await fetch(window.location.href, { cache: "no-store", credentials: "same-origin" });
  if (!response.ok) return;
  const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
  const replacement = fresh.querySelector(`[data-submission="${CSS.escape(id)}"][data-live]`);
  if (replacement) {
    const open = node.querySelector("details")?.open;
    node.replaceWith(replacement);
    const details = replacement.querySelector("details");
    if (details && open !== undefined) details.open = open;
  }
}

for (const node of document.querySelectorAll("[data-live][data-pending]")) refresh(node);
loadCodeOnOpen(document);
