// A banner across the console while the agent does not answer: the watches keep trying (1 s,
// doubling to 5 s) and the page catches up by itself once the agent answers again.
import { useEffect, useState } from "preact/hooks";
import type { WatchStatus } from "./api";

/** ConnectionBanner shows from the first lost try until the watch is live again. */
export function ConnectionBanner(props: { status: WatchStatus }) {
  const [lost, setLost] = useState(false);
  useEffect(() => {
    if (props.status === "retrying") setLost(true);
    else if (props.status === "live") setLost(false);
  }, [props.status]);
  if (!lost) return null;
  return (
    <div class="banner" role="alert" data-testid="offline">
      The agent is not answering: reconnecting… The console catches up by itself when it is back.
    </div>
  );
}
