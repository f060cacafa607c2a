//! Every handwritten PostgreSQL statement, compiled in from `sql/pg/`. A
//! constant's name is its file's name; the file documents binds, result and
//! locks.

macro_rules! sql {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/sql/pg/",
            $name,
            ".sql"
        ))
    };
}

/// Every statement by file name, for `flightstate sql` and the snapshot
/// tests.
pub(crate) const ALL: &[(&str, &str)] = &[
    ("acquire_lease", ACQUIRE_LEASE),
    ("bump_snapshot_version", BUMP_SNAPSHOT_VERSION),
    ("claim_change_notices", CLAIM_CHANGE_NOTICES),
    ("claim_state_events", CLAIM_STATE_EVENTS),
    ("complete_request", COMPLETE_REQUEST),
    ("count_pending_events", COUNT_PENDING_EVENTS),
    ("decide_held_message", DECIDE_HELD_MESSAGE),
    ("delete_bridges", DELETE_BRIDGES),
    ("delete_carousels", DELETE_CAROUSELS),
    ("delete_chocks", DELETE_CHOCKS),
    ("delete_chutes", DELETE_CHUTES),
    ("delete_counters", DELETE_COUNTERS),
    ("delete_delays", DELETE_DELAYS),
    ("delete_effect_calls", DELETE_EFFECT_CALLS),
    ("delete_operator_actions", DELETE_OPERATOR_ACTIONS),
    ("delete_flights", DELETE_FLIGHTS),
    ("delete_flights_of_day", DELETE_FLIGHTS_OF_DAY),
    ("delete_gates", DELETE_GATES),
    ("delete_proc_states", DELETE_PROC_STATES),
    ("delete_route_points", DELETE_ROUTE_POINTS),
    ("delete_sent_change_notices", DELETE_SENT_CHANGE_NOTICES),
    ("delete_sent_state_events", DELETE_SENT_STATE_EVENTS),
    ("delete_snapshot_ledger", DELETE_SNAPSHOT_LEDGER),
    ("delete_snapshot_list", DELETE_SNAPSHOT_LIST),
    ("delete_stands", DELETE_STANDS),
    (
        "delete_superseded_state_events",
        DELETE_SUPERSEDED_STATE_EVENTS,
    ),
    ("expire_requests", EXPIRE_REQUESTS),
    ("grant_effect_calls", GRANT_EFFECT_CALLS),
    ("insert_bridges", INSERT_BRIDGES),
    ("insert_carousels", INSERT_CAROUSELS),
    ("insert_change_notices", INSERT_CHANGE_NOTICES),
    ("insert_chocks", INSERT_CHOCKS),
    ("insert_chutes", INSERT_CHUTES),
    ("insert_counters", INSERT_COUNTERS),
    ("insert_delays", INSERT_DELAYS),
    ("insert_effect_intent", INSERT_EFFECT_INTENT),
    ("insert_flights", INSERT_FLIGHTS),
    ("insert_gates", INSERT_GATES),
    ("insert_operator_action", INSERT_OPERATOR_ACTION),
    ("insert_request", INSERT_REQUEST),
    ("insert_route_points", INSERT_ROUTE_POINTS),
    ("insert_snapshot_ledger", INSERT_SNAPSHOT_LEDGER),
    ("insert_snapshot_list", INSERT_SNAPSHOT_LIST),
    ("insert_stands", INSERT_STANDS),
    ("insert_state_events", INSERT_STATE_EVENTS),
    ("lock_pipeline", LOCK_PIPELINE),
    ("next_outbound_seqn", NEXT_OUTBOUND_SEQN),
    ("next_request_id", NEXT_REQUEST_ID),
    ("raise_event_ids", RAISE_EVENT_IDS),
    ("raise_state_versions", RAISE_STATE_VERSIONS),
    ("record_effect_receipt", RECORD_EFFECT_RECEIPT),
    ("record_outcomes", RECORD_OUTCOMES),
    ("record_replay", RECORD_REPLAY),
    ("release_lease", RELEASE_LEASE),
    ("release_migration_lock", RELEASE_MIGRATION_LOCK),
    ("renew_lease", RENEW_LEASE),
    ("requeue_dead_letters", REQUEUE_DEAD_LETTERS),
    ("retry_change_notices", RETRY_CHANGE_NOTICES),
    ("retry_state_events", RETRY_STATE_EVENTS),
    ("schedule_retry", SCHEDULE_RETRY),
    ("select_applied_migrations", SELECT_APPLIED_MIGRATIONS),
    ("select_blocked_head", SELECT_BLOCKED_HEAD),
    ("select_bridges", SELECT_BRIDGES),
    ("select_carousels", SELECT_CAROUSELS),
    ("select_chocks", SELECT_CHOCKS),
    ("select_chutes", SELECT_CHUTES),
    ("select_counters", SELECT_COUNTERS),
    ("select_current_versions", SELECT_CURRENT_VERSIONS),
    ("select_dead_letters", SELECT_DEAD_LETTERS),
    ("select_delays", SELECT_DELAYS),
    ("select_effect_call", SELECT_EFFECT_CALL),
    ("select_flids_after", SELECT_FLIDS_AFTER),
    (
        "select_flids_of_airline_after",
        SELECT_FLIDS_OF_AIRLINE_AFTER,
    ),
    ("select_flids_of_day_after", SELECT_FLIDS_OF_DAY_AFTER),
    ("select_flight_digests", SELECT_FLIGHT_DIGESTS),
    ("select_flight_matches", SELECT_FLIGHT_MATCHES),
    ("select_flight_versions", SELECT_FLIGHT_VERSIONS),
    ("select_flights", SELECT_FLIGHTS),
    ("select_gates", SELECT_GATES),
    ("select_last_final_message", SELECT_LAST_FINAL_MESSAGE),
    ("select_latest_by_status", SELECT_LATEST_BY_STATUS),
    ("select_latest_order_evidence", SELECT_LATEST_ORDER_EVIDENCE),
    ("select_message_record", SELECT_MESSAGE_RECORD),
    ("select_migration_table", SELECT_MIGRATION_TABLE),
    ("select_old_operator_actions", SELECT_OLD_OPERATOR_ACTIONS),
    ("select_missing_privileges", SELECT_MISSING_PRIVILEGES),
    ("select_open_effect_calls", SELECT_OPEN_EFFECT_CALLS),
    ("select_operator_actions", SELECT_OPERATOR_ACTIONS),
    ("select_order_evidence", SELECT_ORDER_EVIDENCE),
    ("select_outbox_backlog", SELECT_OUTBOX_BACKLOG),
    ("select_pipeline_lease", SELECT_PIPELINE_LEASE),
    ("select_proc_counts", SELECT_PROC_COUNTS),
    ("select_proc_minutes", SELECT_PROC_MINUTES),
    ("select_proc_states", SELECT_PROC_STATES),
    ("select_received_times", SELECT_RECEIVED_TIMES),
    ("select_request_day", SELECT_REQUEST_DAY),
    ("select_requests", SELECT_REQUESTS),
    ("select_route_points", SELECT_ROUTE_POINTS),
    ("select_seqn_evidence", SELECT_SEQN_EVIDENCE),
    ("select_seqn_senders", SELECT_SEQN_SENDERS),
    ("select_server_version", SELECT_SERVER_VERSION),
    ("select_settled_effect_calls", SELECT_SETTLED_EFFECT_CALLS),
    ("select_held_days", SELECT_HELD_DAYS),
    ("select_snapshot_days", SELECT_SNAPSHOT_DAYS),
    ("select_snapshot_ledger", SELECT_SNAPSHOT_LEDGER),
    ("select_snapshot_list", SELECT_SNAPSHOT_LIST),
    ("select_stale_flights", SELECT_STALE_FLIGHTS),
    ("select_stale_proc_states", SELECT_STALE_PROC_STATES),
    ("select_retired_days", SELECT_RETIRED_DAYS),
    ("select_retired_flights", SELECT_RETIRED_FLIGHTS),
    ("select_stale_snapshot_days", SELECT_STALE_SNAPSHOT_DAYS),
    ("select_stands", SELECT_STANDS),
    ("select_state_documents", SELECT_STATE_DOCUMENTS),
    ("select_version_floors", SELECT_VERSION_FLOORS),
    ("select_watermark", SELECT_WATERMARK),
    ("set_idle_limit", SET_IDLE_LIMIT),
    ("set_read_only_snapshot", SET_READ_ONLY_SNAPSHOT),
    ("set_repeatable_read", SET_REPEATABLE_READ),
    ("take_migration_lock", TAKE_MIGRATION_LOCK),
    ("time_out_requests", TIME_OUT_REQUESTS),
    ("upsert_flights", UPSERT_FLIGHTS),
    ("upsert_order_evidence", UPSERT_ORDER_EVIDENCE),
    ("upsert_seqn_evidence", UPSERT_SEQN_EVIDENCE),
    ("upsert_version_floors", UPSERT_VERSION_FLOORS),
    ("withdraw_request_calls", WITHDRAW_REQUEST_CALLS),
];

pub(crate) const ACQUIRE_LEASE: &str = sql!("acquire_lease");
pub(crate) const BUMP_SNAPSHOT_VERSION: &str = sql!("bump_snapshot_version");
pub(crate) const CLAIM_CHANGE_NOTICES: &str = sql!("claim_change_notices");
pub(crate) const CLAIM_STATE_EVENTS: &str = sql!("claim_state_events");
pub(crate) const COUNT_PENDING_EVENTS: &str = sql!("count_pending_events");
pub(crate) const DECIDE_HELD_MESSAGE: &str = sql!("decide_held_message");
pub(crate) const DELETE_BRIDGES: &str = sql!("delete_bridges");
pub(crate) const DELETE_CAROUSELS: &str = sql!("delete_carousels");
pub(crate) const DELETE_CHOCKS: &str = sql!("delete_chocks");
pub(crate) const DELETE_CHUTES: &str = sql!("delete_chutes");
pub(crate) const DELETE_COUNTERS: &str = sql!("delete_counters");
pub(crate) const DELETE_DELAYS: &str = sql!("delete_delays");
pub(crate) const DELETE_FLIGHTS: &str = sql!("delete_flights");
pub(crate) const DELETE_FLIGHTS_OF_DAY: &str = sql!("delete_flights_of_day");
pub(crate) const DELETE_GATES: &str = sql!("delete_gates");
pub(crate) const DELETE_ROUTE_POINTS: &str = sql!("delete_route_points");
pub(crate) const DELETE_SENT_CHANGE_NOTICES: &str = sql!("delete_sent_change_notices");
pub(crate) const DELETE_SENT_STATE_EVENTS: &str = sql!("delete_sent_state_events");
pub(crate) const DELETE_SNAPSHOT_LIST: &str = sql!("delete_snapshot_list");
pub(crate) const DELETE_STANDS: &str = sql!("delete_stands");
pub(crate) const GRANT_EFFECT_CALLS: &str = sql!("grant_effect_calls");
pub(crate) const INSERT_BRIDGES: &str = sql!("insert_bridges");
pub(crate) const INSERT_CAROUSELS: &str = sql!("insert_carousels");
pub(crate) const INSERT_CHANGE_NOTICES: &str = sql!("insert_change_notices");
pub(crate) const INSERT_CHOCKS: &str = sql!("insert_chocks");
pub(crate) const INSERT_CHUTES: &str = sql!("insert_chutes");
pub(crate) const INSERT_COUNTERS: &str = sql!("insert_counters");
pub(crate) const INSERT_DELAYS: &str = sql!("insert_delays");
pub(crate) const INSERT_EFFECT_INTENT: &str = sql!("insert_effect_intent");
pub(crate) const INSERT_FLIGHTS: &str = sql!("insert_flights");
pub(crate) const INSERT_GATES: &str = sql!("insert_gates");
pub(crate) const INSERT_ROUTE_POINTS: &str = sql!("insert_route_points");
pub(crate) const INSERT_SNAPSHOT_LEDGER: &str = sql!("insert_snapshot_ledger");
pub(crate) const INSERT_SNAPSHOT_LIST: &str = sql!("insert_snapshot_list");
pub(crate) const INSERT_STANDS: &str = sql!("insert_stands");
pub(crate) const INSERT_STATE_EVENTS: &str = sql!("insert_state_events");
pub(crate) const LOCK_PIPELINE: &str = sql!("lock_pipeline");
pub(crate) const RECORD_EFFECT_RECEIPT: &str = sql!("record_effect_receipt");
pub(crate) const RECORD_OUTCOMES: &str = sql!("record_outcomes");
pub(crate) const RELEASE_LEASE: &str = sql!("release_lease");
pub(crate) const RELEASE_MIGRATION_LOCK: &str = sql!("release_migration_lock");
pub(crate) const RENEW_LEASE: &str = sql!("renew_lease");
pub(crate) const RETRY_CHANGE_NOTICES: &str = sql!("retry_change_notices");
pub(crate) const RETRY_STATE_EVENTS: &str = sql!("retry_state_events");
pub(crate) const SCHEDULE_RETRY: &str = sql!("schedule_retry");
pub(crate) const SELECT_BRIDGES: &str = sql!("select_bridges");
pub(crate) const SELECT_CAROUSELS: &str = sql!("select_carousels");
pub(crate) const SELECT_CHOCKS: &str = sql!("select_chocks");
pub(crate) const SELECT_CHUTES: &str = sql!("select_chutes");
pub(crate) const SELECT_COUNTERS: &str = sql!("select_counters");
pub(crate) const SELECT_DELAYS: &str = sql!("select_delays");
pub(crate) const SELECT_EFFECT_CALL: &str = sql!("select_effect_call");
pub(crate) const SELECT_FLIGHT_DIGESTS: &str = sql!("select_flight_digests");
pub(crate) const SELECT_FLIGHT_MATCHES: &str = sql!("select_flight_matches");
pub(crate) const SELECT_FLIGHTS: &str = sql!("select_flights");
pub(crate) const SELECT_GATES: &str = sql!("select_gates");
pub(crate) const SELECT_OPEN_EFFECT_CALLS: &str = sql!("select_open_effect_calls");
pub(crate) const SELECT_PROC_STATES: &str = sql!("select_proc_states");
pub(crate) const SELECT_RECEIVED_TIMES: &str = sql!("select_received_times");
pub(crate) const SELECT_ROUTE_POINTS: &str = sql!("select_route_points");
pub(crate) const SELECT_SNAPSHOT_LEDGER: &str = sql!("select_snapshot_ledger");
pub(crate) const SELECT_SNAPSHOT_LIST: &str = sql!("select_snapshot_list");
pub(crate) const SELECT_STANDS: &str = sql!("select_stands");
pub(crate) const SELECT_STATE_DOCUMENTS: &str = sql!("select_state_documents");
pub(crate) const SELECT_VERSION_FLOORS: &str = sql!("select_version_floors");
pub(crate) const SET_REPEATABLE_READ: &str = sql!("set_repeatable_read");
pub(crate) const TAKE_MIGRATION_LOCK: &str = sql!("take_migration_lock");
pub(crate) const UPSERT_FLIGHTS: &str = sql!("upsert_flights");
pub(crate) const UPSERT_VERSION_FLOORS: &str = sql!("upsert_version_floors");
pub(crate) const SET_IDLE_LIMIT: &str = sql!("set_idle_limit");
pub(crate) const SET_READ_ONLY_SNAPSHOT: &str = sql!("set_read_only_snapshot");
pub(crate) const SELECT_FLIDS_AFTER: &str = sql!("select_flids_after");
pub(crate) const SELECT_FLIDS_OF_DAY_AFTER: &str = sql!("select_flids_of_day_after");
pub(crate) const SELECT_PIPELINE_LEASE: &str = sql!("select_pipeline_lease");
pub(crate) const SELECT_PROC_COUNTS: &str = sql!("select_proc_counts");
pub(crate) const SELECT_PROC_MINUTES: &str = sql!("select_proc_minutes");
pub(crate) const SELECT_LATEST_BY_STATUS: &str = sql!("select_latest_by_status");
pub(crate) const SELECT_OUTBOX_BACKLOG: &str = sql!("select_outbox_backlog");
/// The heartbeat's watermark (`crate::store::ReadOps::select_watermark`).
pub(crate) const SELECT_WATERMARK: &str = sql!("select_watermark");
pub(crate) const SELECT_HELD_DAYS: &str = sql!("select_held_days");
pub(crate) const SELECT_SNAPSHOT_DAYS: &str = sql!("select_snapshot_days");
pub(crate) const COMPLETE_REQUEST: &str = sql!("complete_request");
pub(crate) const EXPIRE_REQUESTS: &str = sql!("expire_requests");
pub(crate) const INSERT_REQUEST: &str = sql!("insert_request");
pub(crate) const NEXT_OUTBOUND_SEQN: &str = sql!("next_outbound_seqn");
pub(crate) const NEXT_REQUEST_ID: &str = sql!("next_request_id");
pub(crate) const SELECT_REQUEST_DAY: &str = sql!("select_request_day");
pub(crate) const SELECT_REQUESTS: &str = sql!("select_requests");
pub(crate) const TIME_OUT_REQUESTS: &str = sql!("time_out_requests");
pub(crate) const WITHDRAW_REQUEST_CALLS: &str = sql!("withdraw_request_calls");
pub(crate) const REQUEUE_DEAD_LETTERS: &str = sql!("requeue_dead_letters");
pub(crate) const SELECT_DEAD_LETTERS: &str = sql!("select_dead_letters");
pub(crate) const SELECT_MESSAGE_RECORD: &str = sql!("select_message_record");
pub(crate) const SELECT_STALE_FLIGHTS: &str = sql!("select_stale_flights");
pub(crate) const SELECT_RETIRED_DAYS: &str = sql!("select_retired_days");
pub(crate) const SELECT_RETIRED_FLIGHTS: &str = sql!("select_retired_flights");
pub(crate) const SELECT_STALE_SNAPSHOT_DAYS: &str = sql!("select_stale_snapshot_days");
pub(crate) const DELETE_SNAPSHOT_LEDGER: &str = sql!("delete_snapshot_ledger");
pub(crate) const SELECT_STALE_PROC_STATES: &str = sql!("select_stale_proc_states");
pub(crate) const DELETE_PROC_STATES: &str = sql!("delete_proc_states");
pub(crate) const SELECT_SETTLED_EFFECT_CALLS: &str = sql!("select_settled_effect_calls");
pub(crate) const DELETE_EFFECT_CALLS: &str = sql!("delete_effect_calls");
pub(crate) const RECORD_REPLAY: &str = sql!("record_replay");
pub(crate) const SELECT_BLOCKED_HEAD: &str = sql!("select_blocked_head");
pub(crate) const SELECT_LATEST_ORDER_EVIDENCE: &str = sql!("select_latest_order_evidence");
pub(crate) const SELECT_ORDER_EVIDENCE: &str = sql!("select_order_evidence");
pub(crate) const SELECT_SEQN_EVIDENCE: &str = sql!("select_seqn_evidence");
pub(crate) const SELECT_SEQN_SENDERS: &str = sql!("select_seqn_senders");
pub(crate) const UPSERT_ORDER_EVIDENCE: &str = sql!("upsert_order_evidence");
pub(crate) const UPSERT_SEQN_EVIDENCE: &str = sql!("upsert_seqn_evidence");
pub(crate) const SELECT_SERVER_VERSION: &str = sql!("select_server_version");
pub(crate) const SELECT_MIGRATION_TABLE: &str = sql!("select_migration_table");
pub(crate) const SELECT_APPLIED_MIGRATIONS: &str = sql!("select_applied_migrations");
pub(crate) const SELECT_MISSING_PRIVILEGES: &str = sql!("select_missing_privileges");
pub(crate) const SELECT_FLIGHT_VERSIONS: &str = sql!("select_flight_versions");
pub(crate) const RAISE_STATE_VERSIONS: &str = sql!("raise_state_versions");
pub(crate) const DELETE_SUPERSEDED_STATE_EVENTS: &str = sql!("delete_superseded_state_events");
pub(crate) const RAISE_EVENT_IDS: &str = sql!("raise_event_ids");
/// The lost tail's bound (`crate::store::TailOps`).
pub(crate) const SELECT_LAST_FINAL_MESSAGE: &str = sql!("select_last_final_message");
/// `flightstate republish` (`crate::store::RepublishOps`).
pub(crate) const SELECT_FLIDS_OF_AIRLINE_AFTER: &str = sql!("select_flids_of_airline_after");
pub(crate) const SELECT_CURRENT_VERSIONS: &str = sql!("select_current_versions");

// The operator's record (`store::action`).
pub(crate) const INSERT_OPERATOR_ACTION: &str = sql!("insert_operator_action");
pub(crate) const SELECT_OPERATOR_ACTIONS: &str = sql!("select_operator_actions");
pub(crate) const SELECT_OLD_OPERATOR_ACTIONS: &str = sql!("select_old_operator_actions");
pub(crate) const DELETE_OPERATOR_ACTIONS: &str = sql!("delete_operator_actions");
