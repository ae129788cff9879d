// The console's live updates (issue 14). One EventSource per page on the feed's event stream (Parley v1
// §16), read with the staff session. On an event the page's live regions ([data-parley-live]) are fetched
// again from the server, which alone renders them, and swapped in; a page showing one thread does so only
// for that thread's events, and every page keeps the header's queue count current. Without JavaScript, or
// when the stream cannot be had, the page is the same page and a reload shows what is new.
(function () {
  "use strict";

  const indicator = document.getElementById("parley-live");
  if (!indicator || !window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }
  const config = indicator.dataset;
  const COALESCE_MS = 150; // one re-fetch for a burst of events (a bulk confirm writes one per thread)
  const REOPEN_MS = 30000; // after the stream was refused (e.g. all of this login's streams are open)
  const COUNT = "queue-count";

  let source = null;
  let lastId = null;
  let timer = null;
  let fetching = false;
  let fetchAgain = false;
  let pageStale = false;

  function regions(root) {
    return Array.from(root.querySelectorAll("[data-parley-live]"));
  }

  const pageHasRegions = regions(document).some(function (region) {
    return region.dataset.parleyLive !== COUNT;
  });

  function show(state) {
    indicator.hidden = false;
    indicator.dataset.state = state;
    indicator.textContent = state === "live" ? config.textLive : config.textOffline;
    indicator.title = state === "live" ? config.titleLive : config.titleOffline;
  }

  // A moderator picking threads for an action keeps their selection: the list waits until none is ticked.
  function selecting() {
    return document.querySelector("input.action-select:checked") !== null;
  }

  function concernsPage(event) {
    if (!pageHasRegions) {
      return false;
    }
    if (!config.thread) {
      return true;
    }
    try {
      return JSON.parse(event.data).thread === config.thread;
    } catch (error) {
      return true;
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, COALESCE_MS);
  }

  function swap(fresh) {
    let listReplaced = false;
    regions(fresh).forEach(function (region) {
      const name = region.dataset.parleyLive;
      const current = document.querySelector('[data-parley-live="' + name + '"]');
      if (current) {
        current.replaceWith(document.importNode(region, true));
        listReplaced = listReplaced || current.querySelector("input.action-select") !== null;
      }
    });
    // Django's own actions script binds the new checkboxes (select all, the counter).
    if (listReplaced && window.Actions) {
      window.Actions(document.querySelectorAll("tr input.action-select"));
    }
  }

  async function refresh() {
    if (fetching) {
      fetchAgain = true;
      return;
    }
    const wholePage = pageStale && !selecting();
    if (!wholePage && !document.querySelector('[data-parley-live="' + COUNT + '"]')) {
      return; // a page without the count (the reading pages) that this event does not concern
    }
    fetching = true;
    fetchAgain = false;
    if (wholePage) {
      pageStale = false;
    }
    try {
      const response = await fetch(wholePage ? window.location.href : config.countUrl,
                                   {credentials: "same-origin", cache: "no-store"});
      // A redirect is the login page: the session ended, and the page stays as it is.
      if (response.ok && !response.redirected) {
        swap(new DOMParser().parseFromString(await response.text(), "text/html"));
      }
    } catch (error) {
      // The server is away: the stream reconnects, and its next event fetches again.
    }
    fetching = false;
    if (fetchAgain) {
      refresh();
    }
  }

  function open() {
    const url = new URL(config.stream, window.location.href);
    if (lastId) {
      url.searchParams.set("since", lastId); // a stream opened anew resumes after the last event seen
    }
    source = new EventSource(url);
    source.onopen = function () {
      show("live");
    };
    source.onmessage = function (event) {
      lastId = event.lastEventId || lastId;
      pageStale = pageStale || concernsPage(event);
      schedule();
    };
    source.addEventListener("error", function (event) {
      show("offline");
      if (event.data) {
        source.close(); // the stream's own last frame: this session may no longer read it (§13)
      }
      // Otherwise the browser reconnects by itself (the stream's retry:), sending Last-Event-ID; only a
      // refused stream (a 4xx or 5xx answer) is closed, and opened again later.
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(open, REOPEN_MS);
      }
    });
  }

  document.addEventListener("change", function (event) {
    if (pageStale && event.target.matches("input.action-select, #action-toggle") && !selecting()) {
      schedule();
    }
  });
  // Messages that change no state make no event (§11): a page shown again is brought up to date.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && pageHasRegions) {
      pageStale = true;
      schedule();
    }
  });
  // Free this login's stream at once when the page goes (a line holds a few, §16); reopen if it comes back.
  window.addEventListener("pagehide", function () {
    if (source) {
      source.close();
    }
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      open();
    }
  });
  show("offline");
  open();
}());
