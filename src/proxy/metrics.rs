//! The proxy's Prometheus metrics (`GET /metrics`), kept with the Prometheus org's own
//! client (`prometheus-client`) and written as its text exposition (OpenMetrics text 1.0,
//! which Prometheus scrapes natively).
//!
//! Every request adds to them when it ends (see [`observe`](super::observe)): the same
//! numbers its access-log line carries.

use super::observe::Line;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// `route` and `status` of a request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteStatus {
    route: &'static str,
    status: u16,
}

/// `route` alone.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Route {
    route: &'static str,
}

/// An upstream failure: its reply's status, or `unreachable` / `timeout` when none came.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct UpstreamStatus {
    status: String,
}

/// Latency buckets in seconds: 5 ms to ~82 s, doubling.
fn latency() -> Histogram {
    Histogram::new(exponential_buckets(0.005, 2.0, 15))
}

/// The metrics and the registry that writes them.
#[derive(Debug)]
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<RouteStatus, Counter>,
    calls: Counter,
    repaired: Counter,
    refused: Counter,
    truncated: Counter,
    upstream_errors: Family<UpstreamStatus, Counter>,
    ttfb: Family<Route, Histogram, fn() -> Histogram>,
    duration: Family<Route, Histogram, fn() -> Histogram>,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("toolstream_proxy");
        let requests = Family::<RouteStatus, Counter>::default();
        registry.register(
            "requests",
            "Requests answered, by route and status",
            requests.clone(),
        );
        let calls = Counter::default();
        registry.register(
            "tool_calls",
            "Tool calls sent to clients in streamed replies",
            calls.clone(),
        );
        let repaired = Counter::default();
        registry.register(
            "tool_calls_repaired",
            "Tool calls sent to clients that the upstream had leaked into its text",
            repaired.clone(),
        );
        let refused = Counter::default();
        registry.register(
            "tool_calls_refused",
            "Tool calls the policy refused (undeclared tool, a second call without parallel_tool_calls)",
            refused.clone(),
        );
        let truncated = Counter::default();
        registry.register(
            "truncated_replies",
            "Streamed replies the upstream cut off or stalled in",
            truncated.clone(),
        );
        let upstream_errors = Family::<UpstreamStatus, Counter>::default();
        registry.register(
            "upstream_errors",
            "Upstream replies with a non-2xx status, and requests the upstream never answered (unreachable, timeout)",
            upstream_errors.clone(),
        );
        let ttfb = Family::<Route, Histogram, fn() -> Histogram>::new_with_constructor(latency);
        registry.register(
            "ttfb_seconds",
            "Time from a request to the first byte of its reply body sent to the client",
            ttfb.clone(),
        );
        let duration = Family::<Route, Histogram, fn() -> Histogram>::new_with_constructor(latency);
        registry.register(
            "duration_seconds",
            "Time from a request to the end of its reply (a stream's end)",
            duration.clone(),
        );
        Metrics {
            registry,
            requests,
            calls,
            repaired,
            refused,
            truncated,
            upstream_errors,
            ttfb,
            duration,
        }
    }

    /// Adds an ended request.
    pub(crate) fn record(&self, line: &Line) {
        let route = line.route;
        self.requests
            .get_or_create(&RouteStatus {
                route,
                status: line.status,
            })
            .inc();
        self.calls.inc_by(line.calls);
        self.repaired.inc_by(line.repaired);
        self.refused.inc_by(line.refused);
        if line.cut {
            self.truncated.inc();
        }
        let failed = match line.upstream_status {
            Some(s) if !(200..300).contains(&s) => Some(s.to_string()),
            Some(_) => None,
            // The proxy's own answers when no upstream reply came (it makes no other 502 or
            // 504 without one).
            None if line.status == 502 => Some("unreachable".into()),
            None if line.status == 504 => Some("timeout".into()),
            None => None,
        };
        if let Some(status) = failed {
            self.upstream_errors
                .get_or_create(&UpstreamStatus { status })
                .inc();
        }
        if let Some(ms) = line.ttfb_ms {
            self.ttfb
                .get_or_create(&Route { route })
                .observe(ms as f64 / 1000.0);
        }
        self.duration
            .get_or_create(&Route { route })
            .observe(line.duration_ms as f64 / 1000.0);
    }

    /// The text exposition.
    pub(crate) fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// The exposition's content type.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
