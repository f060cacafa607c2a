// @generated automatically by Diesel CLI.

diesel::table! {
    /// Durable journal of calls that leave the database after commit (mailbox write-back, requests written to COUTMSGS): one row per logical call, recording intent, grant and outcome
    effect_call (call_id) {
        /// Call id, given by the database
        call_id -> Int8,
        /// SHA-256 (lower-case hex) of (SCOPE, STEP, SUB_KEY): the one identity of the logical call
        #[max_length = 64]
        idempotency_key -> Bpchar,
        /// Which part of flightstate owns the call (e.g. mailbox)
        #[max_length = 64]
        scope -> Varchar,
        /// Which step of that part makes the call (e.g. write-back, request)
        #[max_length = 64]
        step -> Varchar,
        /// Stable name of the logical action (e.g. backfill:{mailbox id}, request:{req id}:{attempt}); never a list position or a time
        #[max_length = 200]
        sub_key -> Varchar,
        /// What the call does (e.g. BACKFILL = write a message's status back to CMINMSGS, REQUEST = insert a request into COUTMSGS)
        #[max_length = 32]
        call_kind -> Varchar,
        /// Where the call goes (e.g. the mailbox table and row id)
        #[max_length = 200]
        target -> Varchar,
        /// The data needed to make the call (e.g. the write-back status, the request XML); never secrets
        payload -> Text,
        /// SHA-256 (lower-case hex) of TARGET and PAYLOAD; never changes for the same IDEMPOTENCY_KEY
        #[max_length = 64]
        payload_digest -> Bpchar,
        /// PENDING = intent recorded; DISPATCHED = granted, the call may have been made; NOT_SENT = the client is certain it was not sent; UNKNOWN = outcome not known, resolve by reading the target back; ACCEPTED, REJECTED, CONFLICT = the target's answer
        #[max_length = 16]
        status -> Varchar,
        /// One-time token of the current grant; a receipt carrying an older token never overwrites a newer one
        #[max_length = 64]
        send_token -> Nullable<Varchar>,
        /// Number of the current grant (0 = never granted); a NOT_SENT call may be granted again only in a later attempt
        attempt -> Int4,
        /// PIPELINE_LOCK.LEASE_EPOCH under which the current grant was made; a receipt under an older lease is kept as evidence only
        lease_epoch -> Nullable<Int8>,
        /// Latest time the call may still be made (UTC); checked again just before calling
        deadline_at -> Nullable<Timestamp>,
        /// Reference returned by the target (e.g. the COUTMSGS_ID of our request row)
        #[max_length = 200]
        remote_ref -> Nullable<Varchar>,
        /// When the intent was recorded (UTC)
        created_at -> Timestamp,
        /// When the current grant was committed, just before the call (UTC)
        dispatched_at -> Nullable<Timestamp>,
        /// When the outcome of the call was stored (UTC)
        receipt_at -> Nullable<Timestamp>,
        /// When the row last changed (UTC)
        updated_at -> Timestamp,
    }
}

diesel::table! {
    /// Airbridge dock and undock events of a flight: one row per SIS ABTM element, in input order
    flight_bridge (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the ABTM element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS ABTM/@ASNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS ABDG: airbridge code
        #[max_length = 16]
        abdg -> Nullable<Varchar>,
        /// SIS ABOP: airbridge operation, attach (dock) or detach (undock)
        #[max_length = 16]
        abop -> Nullable<Varchar>,
        /// SIS AOTM: time of the airbridge operation (station local)
        aotm -> Nullable<Timestamp>,
    }
}

diesel::table! {
    /// Baggage reclaim carousel allocations of a flight: one row per SIS CLDT element, in input order
    flight_carousel (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the CLDT element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS CLDT/@CLNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS BELT: reclaim belt (carousel) code
        #[max_length = 16]
        belt -> Nullable<Varchar>,
        /// SIS BCLS: cabin class served, F / C / Y / X
        #[max_length = 16]
        bcls -> Nullable<Varchar>,
        /// SIS PCOT: planned carousel start time (station local)
        pcot -> Nullable<Timestamp>,
        /// SIS PCCT: planned carousel end time (station local)
        pcct -> Nullable<Timestamp>,
        /// SIS FBAG: first bag on the belt (station local)
        fbag -> Nullable<Timestamp>,
        /// SIS LBAG: last bag on the belt (station local)
        lbag -> Nullable<Timestamp>,
        /// SIS BTYP: carousel type, D = domestic, I = international
        #[max_length = 16]
        btyp -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Chocks on and off events of a flight: one row per SIS CHOT element, in input order
    flight_chock (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the CHOT element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS CHOT/@CSNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS CHTM: chocks time (station local)
        chtm -> Nullable<Timestamp>,
        /// SIS CHID: chocks indicator, ON or OFF
        #[max_length = 16]
        chid -> Nullable<Varchar>,
        /// SIS CHST: stand where the chocks were set or removed
        #[max_length = 16]
        chst -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Baggage make-up chute allocations of a flight: one row per SIS CHDT element, in input order
    flight_chute (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the CHDT element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS CHDT/@CHNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS CHUT: chute code
        #[max_length = 16]
        chut -> Nullable<Varchar>,
        /// SIS CCLS: cabin class served, F / C / Y / X
        #[max_length = 16]
        ccls -> Nullable<Varchar>,
        /// SIS PCBT: planned chute begin time (station local)
        pcbt -> Nullable<Timestamp>,
        /// SIS PCET: planned chute end time (station local)
        pcet -> Nullable<Timestamp>,
        /// SIS CBTM: actual chute begin time (station local)
        cbtm -> Nullable<Timestamp>,
        /// SIS CETM: actual chute end time (station local)
        cetm -> Nullable<Timestamp>,
        /// SIS CTYP: chute type, D = domestic, I = international
        #[max_length = 16]
        ctyp -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Check-in counter allocations of a flight: one row per SIS CKDT element, in input order
    flight_counter (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the CKDT element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS CKDT/@CKNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS CHKC: check-in counter code
        #[max_length = 16]
        chkc -> Nullable<Varchar>,
        /// SIS CCLS: cabin class served, F / C / Y / X
        #[max_length = 16]
        ccls -> Nullable<Varchar>,
        /// SIS PCOT: planned counter open time (station local)
        pcot -> Nullable<Timestamp>,
        /// SIS PCCT: planned counter close time (station local)
        pcct -> Nullable<Timestamp>,
        /// SIS COTM: actual counter open time (station local)
        cotm -> Nullable<Timestamp>,
        /// SIS CCTM: actual counter close time (station local)
        cctm -> Nullable<Timestamp>,
        /// SIS CTYP: counter type, D = domestic, I = international
        #[max_length = 16]
        ctyp -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Delays of a flight: one row per SIS DELY element, in input order (FLOP merges them by delay code)
    flight_delay (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the DELY element in the flight's delay list (1 = first); key with FLID
        ordinal -> Int4,
        /// Upstream sequence number; SIS DELY has none, so always NULL (kept for the same shape as every detail table)
        source_seq -> Nullable<Int4>,
        /// SIS DELY/@CODE: delay reason code
        #[max_length = 16]
        dely_code -> Nullable<Varchar>,
        /// SIS DELY/@STRT: delay start (station local)
        dely_strt -> Nullable<Timestamp>,
        /// SIS DELY/@DURA: delay duration in minutes (HHMM converted, 0200 = 120)
        dely_dura -> Nullable<Int4>,
        /// SIS DELY text: free-text delay comment
        #[max_length = 1000]
        dely -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Gate allocations of a flight: one row per SIS GTDT element, in input order
    flight_gate (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the GTDT element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS GTDT/@GTNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS GATE: gate code
        #[max_length = 16]
        gate -> Nullable<Varchar>,
        /// SIS PGOT: planned gate open time (station local)
        pgot -> Nullable<Timestamp>,
        /// SIS PGCT: planned gate close time (station local)
        pgct -> Nullable<Timestamp>,
        /// SIS GOTM: actual gate open time (station local)
        gotm -> Nullable<Timestamp>,
        /// SIS GCTM: actual gate close time (station local)
        gctm -> Nullable<Timestamp>,
        /// SIS GTYP: gate type, D = domestic, I = international
        #[max_length = 16]
        gtyp -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Route stops of a flight: SIS ROUT (the other end(s) seen from the home airport) and ERUT (the entire itinerary, home airport included), one row per element, in input order
    flight_route_point (flid, route_kind, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Which SIS group the stop came from: ROUT (relative route) or ERUT (entire route)
        #[max_length = 4]
        route_kind -> Varchar,
        /// Position of the element among the flight's stops of this ROUTE_KIND (1 = first); key with FLID and ROUTE_KIND
        ordinal -> Int4,
        /// SIS ROUT/@RTNO or ERUT/@RTNO: AODB stop number, stored as sent, never a key (FLOP merges ERUT by it)
        source_seq -> Nullable<Int4>,
        /// SIS APCD: airport IATA code of the stop
        #[max_length = 16]
        apcd -> Nullable<Varchar>,
        /// SIS SCAT: scheduled arrival at the stop (local wall-clock time as AODB sends it)
        scat -> Nullable<Timestamp>,
        /// SIS SCDT: scheduled departure from the stop (local wall-clock time as AODB sends it)
        scdt -> Nullable<Timestamp>,
    }
}

diesel::table! {
    /// Current state of each flight: one row per AODB flight id (FLID) with every scalar element of the SIS flight record (FLTR / FLOP body). Repeating groups live in the FLIGHT_* detail tables.
    flight_schd (flid) {
        /// SIS FLID: AODB flight id, the one key of a flight
        flid -> Int8,
        /// SIS ALCD: airline IATA code
        #[max_length = 16]
        alcd -> Nullable<Varchar>,
        /// SIS ALSC: airline subcompany code
        #[max_length = 16]
        alsc -> Nullable<Varchar>,
        /// SIS FLNO: flight number including the airline (e.g. YG9028)
        #[max_length = 16]
        flno -> Nullable<Varchar>,
        /// SIS MVIN: movement, A = arrival, D = departure
        #[max_length = 16]
        mvin -> Nullable<Varchar>,
        /// SIS SODT: scheduled operation date-time, STA of an arrival or STD of a departure (station local)
        sodt -> Nullable<Timestamp>,
        /// SIS FLTY: flight type (FLTL code, e.g. W, C, P)
        #[max_length = 16]
        flty -> Nullable<Varchar>,
        /// SIS FLIN: D = domestic, I = international, M = mixed
        #[max_length = 16]
        flin -> Nullable<Varchar>,
        /// SIS ACFT: aircraft IATA type (e.g. 733)
        #[max_length = 16]
        acft -> Nullable<Varchar>,
        /// SIS RENO: aircraft registration (tail number)
        #[max_length = 16]
        reno -> Nullable<Varchar>,
        /// SIS TAOP: airline of the turnaround (linked) flight
        #[max_length = 16]
        taop -> Nullable<Varchar>,
        /// SIS TAFL: flight number of the turnaround (linked) flight
        #[max_length = 16]
        tafl -> Nullable<Varchar>,
        /// SIS TAID: FLID of the turnaround (linked) flight
        taid -> Nullable<Int8>,
        /// SIS TRML: terminal
        #[max_length = 16]
        trml -> Nullable<Varchar>,
        /// SIS MAXP: maximum passengers (seat capacity)
        maxp -> Nullable<Int4>,
        /// SIS CSOP: operating airline of the codeshare master flight
        #[max_length = 16]
        csop -> Nullable<Varchar>,
        /// SIS CSFT: flight number of the codeshare master flight
        #[max_length = 16]
        csft -> Nullable<Varchar>,
        /// SIS MAID: FLID of the codeshare master flight
        maid -> Nullable<Int8>,
        /// SIS ESTT: estimated time, ETA of an arrival or ETD of a departure (station local)
        estt -> Nullable<Timestamp>,
        /// SIS ACTT: actual time, ATA of an arrival or ATD of a departure (station local)
        actt -> Nullable<Timestamp>,
        /// SIS STND: current (actual) stand
        #[max_length = 16]
        stnd -> Nullable<Varchar>,
        /// SIS PHAG: passenger handling agent (ORGN id)
        phag -> Nullable<Int8>,
        /// SIS FHAG: field (ground) handling agent (ORGN id)
        fhag -> Nullable<Int8>,
        /// SIS MHAG: maintenance handling agent (ORGN id)
        mhag -> Nullable<Int8>,
        /// SIS CNCL: cancellation time (station local); set = the flight is cancelled, NULL = not cancelled
        cncl -> Nullable<Timestamp>,
        /// SIS REMC: free-text remarks
        #[max_length = 1000]
        remc -> Nullable<Varchar>,
        /// SIS BOTM: boarding open time (station local)
        botm -> Nullable<Timestamp>,
        /// SIS LACL: last call time (station local)
        lacl -> Nullable<Timestamp>,
        /// SIS FINT: final call time (station local)
        fint -> Nullable<Timestamp>,
        /// SIS APPT: approved time (station local)
        appt -> Nullable<Timestamp>,
        /// SIS EGSR: engine start request time (station local)
        egsr -> Nullable<Timestamp>,
        /// SIS EGST: engine start time (station local)
        egst -> Nullable<Timestamp>,
        /// SIS VIPP: number of VIPs on board
        vipp -> Nullable<Int4>,
        /// SIS VIPR: VIP ranking (one digit)
        vipr -> Nullable<Int4>,
        /// SIS LBNO: local bag count
        lbno -> Nullable<Int4>,
        /// SIS LBWT: local bag weight
        lbwt -> Nullable<Numeric>,
        /// SIS PAXC: total passenger count
        paxc -> Nullable<Int4>,
        /// SIS EXSC: external status code
        #[max_length = 16]
        exsc -> Nullable<Varchar>,
        /// SIS EXSR: external status remark
        #[max_length = 1000]
        exsr -> Nullable<Varchar>,
        /// SIS FTSS: flight status code (STTS)
        #[max_length = 16]
        ftss -> Nullable<Varchar>,
        /// SIS PEDT: estimated departure from the previous station, for arrivals (station local)
        pedt -> Nullable<Timestamp>,
        /// SIS NEAT: estimated arrival at the next station, for departures (station local)
        neat -> Nullable<Timestamp>,
        /// SIS PADT: actual departure from the previous station, for arrivals (station local)
        padt -> Nullable<Timestamp>,
        /// SIS NAAT: actual arrival at the next station, for departures (station local)
        naat -> Nullable<Timestamp>,
        /// SIS COBT: calculated off-block time (station local)
        cobt -> Nullable<Timestamp>,
        /// SIS TOBT: target off-block time (station local)
        tobt -> Nullable<Timestamp>,
        /// SIS EOBT: estimated off-block time (station local)
        eobt -> Nullable<Timestamp>,
        /// SIS IEST: internal estimated time (station local)
        iest -> Nullable<Timestamp>,
        /// SIS CTOT: calculated take-off time (station local); sent by FLOP only, never in an FLTR
        ctot -> Nullable<Timestamp>,
        /// SIS RUNW: logical runway (e.g. 02L)
        #[max_length = 16]
        runw -> Nullable<Varchar>,
        /// SIS FFID: readable flight key of the FLOP body (ALCD-FLNO-MVIN-SODT-FLIN), as last received; for log reading only
        #[max_length = 64]
        ffid -> Nullable<Varchar>,
        /// SIS FDIV/@DDES: diversion airport
        #[max_length = 16]
        fdiv_ddes -> Nullable<Varchar>,
        /// SIS FDIV/@DDIR: diversion direction, TO or FROM the diversion airport
        #[max_length = 16]
        fdiv_ddir -> Nullable<Varchar>,
        /// SIS FDIV text: diversion reason
        #[max_length = 1000]
        fdiv -> Nullable<Varchar>,
        /// SIS FRET/@REID: return kind, A = air return, G = ground return
        #[max_length = 16]
        fret_reid -> Nullable<Varchar>,
        /// SIS FRET text: return reason
        #[max_length = 1000]
        fret -> Nullable<Varchar>,
        /// SIS FLAB/@ARES: aborted landing kind, O = overshoot, G = go-around
        #[max_length = 16]
        flab_ares -> Nullable<Varchar>,
        /// SIS FLAB text: aborted landing reason
        #[max_length = 1000]
        flab -> Nullable<Varchar>,
        /// SIS PORT/POTM with POID = O: aircraft door open time (station local)
        port_open_potm -> Nullable<Timestamp>,
        /// SIS PORT/POTM with POID = C: aircraft door close time (station local)
        port_close_potm -> Nullable<Timestamp>,
        /// Operation day whose daily snapshot (SCHD DNLD/RESP) owns the flight; NULL = not known yet (created by a FLOP or an ad-hoc SCHD ADFT)
        operation_day -> Nullable<Date>,
        /// Version of this flight's state: grows by 1 with every change that altered the flight (an unchanged result bumps nothing); Kafka consumers order by it
        state_version -> Int8,
        /// Id of the message (mailbox CMINMSGS_ID) that last changed the flight
        last_message_id -> Int8,
        /// When flightstate last changed the flight (UTC)
        updated_at -> Timestamp,
        /// Lower-case hex SHA-256 of the flight's full state (main row and every collection) as the pipeline last wrote it; NULL when unknown
        #[max_length = 64]
        state_digest -> Nullable<Bpchar>,
        /// The flight's whole state as the JSON the state topic carries (docs/kafka.md), at STATE_VERSION, as the pipeline last wrote it; NULL when not stored
        state_document -> Nullable<Text>,
    }
}

diesel::table! {
    /// Planned stand allocations of a flight: one row per SIS PSDT element, in input order, with the pushback (PSHT) and tractor-in-place (TIPT) data matched to the stand
    flight_stand (flid, ordinal) {
        /// SIS FLID: the flight (FLIGHT_SCHD.FLID)
        flid -> Int8,
        /// Position of the PSDT element in the message (1 = first); key with FLID
        ordinal -> Int4,
        /// SIS PSDT/@PSNO: AODB sequence number, stored as sent, never a key
        source_seq -> Nullable<Int4>,
        /// SIS PSST: planned stand code
        #[max_length = 16]
        psst -> Nullable<Varchar>,
        /// SIS STST: stand occupation start (station local)
        stst -> Nullable<Timestamp>,
        /// SIS STET: stand occupation end (station local)
        stet -> Nullable<Timestamp>,
        /// SIS PSHT/@PSHN: sequence number of the pushback event matched to this stand (PSHT/PUST = PSST)
        pshn -> Nullable<Int4>,
        /// SIS PSHT/PSTM: pushback time from this stand (station local)
        pstm -> Nullable<Timestamp>,
        /// SIS PSHT/PSID: pushback indicator (e.g. IN)
        #[max_length = 16]
        psid -> Nullable<Varchar>,
        /// SIS TIPT/TRTM: tractor in place at this stand (TIPT/TRST = PSST) (station local)
        trtm -> Nullable<Timestamp>,
    }
}

diesel::table! {
    /// The highest tombstone version of each flight ever deleted: a flight created again under the same FLID starts at this version + 1, so that it sorts after its tombstone
    flight_version_floor (flid) {
        /// SIS FLID of a deleted flight
        flid -> Int8,
        /// The STATE_VERSION of its latest tombstone (its last version + 1)
        state_version -> Int8,
        /// When that deletion was committed (UTC)
        deleted_at -> Timestamp,
    }
}

diesel::table! {
    /// Outbox of change notifications for the change topic (default flight.change): what changed and which message changed it, never the state itself
    kafka_msg (event_id) {
        /// Event id, given by the database; consumers may dedupe on it
        event_id -> Int8,
        /// SIS FLID: the flight that changed; NULL for a notification about no single flight (e.g. a whole snapshot)
        flid -> Nullable<Int8>,
        /// Id of the message (CMINMSGS_ID) that caused the change
        message_id -> Int8,
        /// What kind of change (e.g. CREATED, UPDATED, DELETED, SNAPSHOT)
        #[max_length = 32]
        change_kind -> Varchar,
        /// The notification as JSON text, sent as the Kafka value
        payload -> Text,
        /// When the notification was registered (UTC)
        created_at -> Timestamp,
        /// When Kafka confirmed delivery (UTC); NULL = still to send
        sent_at -> Nullable<Timestamp>,
        /// How many times the dispatcher tried to send it
        attempts -> Int4,
        /// Earliest time of the next try after a failed one (UTC); NULL = as soon as possible
        next_attempt_at -> Nullable<Timestamp>,
        /// The last send failure as text (cut to 2000 characters)
        #[max_length = 2000]
        last_error -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Outbox of flight state events for the state topic (default flight.state), keyed by FLID: one row per state change or deletion; the dispatcher sends the flight's current state, not the row
    kafka_schd (event_id) {
        /// Event id, given by the database at insert time (not in commit order: a higher id may commit first); consumers may dedupe on it
        event_id -> Int8,
        /// SIS FLID: the flight the event is about (the Kafka key)
        flid -> Int8,
        /// FLIGHT_SCHD.STATE_VERSION reached by the change (for a tombstone: the last version before deletion)
        state_version -> Int8,
        /// STATE = the flight changed, send its whole state; TOMBSTONE = the flight was deleted, send {"FLID":..., "DELETED":true}
        #[max_length = 16]
        event_kind -> Varchar,
        /// Id of the message (CMINMSGS_ID) whose transaction registered the event
        message_id -> Int8,
        /// When the event was registered (UTC)
        created_at -> Timestamp,
        /// When Kafka confirmed delivery (or a newer row of the same flight made it redundant) (UTC); NULL = still to send
        sent_at -> Nullable<Timestamp>,
        /// How many times the dispatcher tried to send it
        attempts -> Int4,
        /// Earliest time of the next try after a failed one (UTC); NULL = as soon as possible
        next_attempt_at -> Nullable<Timestamp>,
        /// The last send failure as text (cut to 2000 characters)
        #[max_length = 2000]
        last_error -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// What operators did (flightstate dead requeue, release, reject, request, and the same from the page): one row per action and message, written in the action's own state transaction, refused actions included
    operator_action (action_id) {
        /// Action id, given by the database
        action_id -> Int8,
        /// When the action was taken (UTC)
        taken_at -> Timestamp,
        /// Who took it: the --by name, else the operating-system user; on the page, the signed-in name
        #[max_length = 128]
        taken_by -> Varchar,
        /// Where it was taken: CLI = the command line, PAGE = the web page
        #[max_length = 8]
        via -> Varchar,
        /// REQUEUE = a dead letter applied again; RELEASE, REJECT = the answer to a held snapshot; REQUEST_DAY = an RQFD request for an operation day
        #[max_length = 16]
        action -> Varchar,
        /// The message acted on (CMINMSGS_ID); NULL for an action about no message
        message_id -> Nullable<Int8>,
        /// The operation day acted on; NULL for an action about no day
        operation_day -> Nullable<Date>,
        /// The flight acted on (SIS FLID); NULL for an action about no flight
        flid -> Nullable<Int8>,
        /// What became of it, as a code: REQUEUED, ALREADY_REQUEUED, PENDING, GONE, NOT_DEAD, UNKNOWN, RELEASED, REJECTED, ALREADY_DECIDED, NOT_HELD, REGISTERED, REFUSED
        #[max_length = 32]
        result -> Varchar,
        /// What became of it, for people (cut to 1000 characters)
        #[max_length = 1000]
        detail -> Nullable<Varchar>,
    }
}

diesel::table! {
    /// Per operation day, the arrivals that contradict the senders' clocks (META DTTM): evidence for or against rule M (a same-day snapshot overwrites earlier events), which assumes arrival order is upstream order
    order_evidence (operation_day) {
        /// The operation day (SCHD_GEN.OPERATION_DAY, FLIGHT_SCHD.OPERATION_DAY)
        operation_day -> Date,
        /// META DTTM of the day's latest applied snapshot (station-local); NULL before the first
        snapshot_dttm -> Nullable<Timestamp>,
        /// Message id of that snapshot
        snapshot_message_id -> Nullable<Int8>,
        /// The newest META DTTM among flight events applied to the day's flights since that snapshot (station-local); NULL when none
        newest_event_dttm -> Nullable<Timestamp>,
        /// Message id of the event with that DTTM
        newest_event_id -> Nullable<Int8>,
        /// Flight events applied after the day's snapshot although their DTTM is older than the snapshot's
        late_events -> Int8,
        /// Message id of the latest such event
        last_late_event_id -> Nullable<Int8>,
        /// Message id of the snapshot that latest late event came after
        late_event_after_id -> Nullable<Int8>,
        /// Snapshots applied after flight events of the day whose DTTM is newer than the snapshot's: each overwrote newer data
        stale_snapshots -> Int8,
        /// Message id of the latest such snapshot
        last_stale_snapshot_id -> Nullable<Int8>,
        /// Message id of the newest event that latest stale snapshot overwrote
        stale_snapshot_over_id -> Nullable<Int8>,
        /// When the row was last written (UTC)
        updated_at -> Timestamp,
    }
}

diesel::table! {
    /// Exactly one row: every state transaction locks it (SELECT ... FOR UPDATE) to serialise writers, and it holds the lease of the single active pump
    pipeline_lock (lock_id) {
        /// Always 1: the table has exactly one row
        lock_id -> Int2,
        /// Which pump instance holds the lease (host and process); NULL = no pump has taken it yet
        #[max_length = 200]
        lease_holder -> Nullable<Varchar>,
        /// Fencing epoch: bumped by every takeover; a state transaction commits only if it still sees the epoch it took the lease with
        lease_epoch -> Int8,
        /// When the lease runs out unless renewed (UTC); after that another pump may take over
        lease_expires_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    /// Processing state of each inbound message: one row per message that flightstate has tried to apply
    proc_state (message_id) {
        /// Id of the message: its mailbox row id (CMINMSGS_ID), or the id given to flightstate apply
        message_id -> Int8,
        /// Stable identity of the message (where it came from and its id); a second look at an already committed message finds it here and changes nothing
        #[max_length = 80]
        identity_key -> Varchar,
        /// SUCCEEDED = applied; FAILED = not applied yet, will be retried; DEAD = given up, needs an operator (flightstate dead); HELD = a snapshot the mass-delete guard stopped, the queue waits for flightstate release or reject
        #[max_length = 16]
        status -> Varchar,
        /// Kind of the last failure, which decided retry or dead-lettering (e.g. UNSUPPORTED, INFRA); NULL when SUCCEEDED
        #[max_length = 32]
        error_kind -> Nullable<Varchar>,
        /// The last failure as text for the operator (cut to 2000 characters); NULL when SUCCEEDED
        #[max_length = 2000]
        error_text -> Nullable<Varchar>,
        /// How many times flightstate has tried to apply the message
        attempts -> Int4,
        /// SIS META/TYPE of the message (e.g. SCHD, FLOP); NULL when the envelope could not be read
        #[max_length = 16]
        msg_type -> Nullable<Varchar>,
        /// SIS META/STYP of the message (e.g. DNLD, GTDT); NULL when the envelope could not be read
        #[max_length = 16]
        msg_subtype -> Nullable<Varchar>,
        /// Earliest time of the next retry of a FAILED message (UTC); NULL otherwise
        next_attempt_at -> Nullable<Timestamp>,
        /// When flightstate first tried the message (UTC)
        first_seen_at -> Timestamp,
        /// When the row last changed (UTC)
        updated_at -> Timestamp,
        /// How many times an operator requeued the message after it was DEAD (flightstate dead requeue); its write-back after the n-th is the call backfill:{id}:requeue:{n}
        requeue_count -> Int4,
        /// Who requeued it last: the --by name given to flightstate dead requeue, else the operating-system user
        #[max_length = 128]
        requeued_by -> Nullable<Varchar>,
        /// When it was requeued last (UTC)
        requeued_at -> Nullable<Timestamp>,
        /// An operator's answer to a HELD snapshot: RELEASED = applied as it is (flightstate release), REJECTED = DEAD (flightstate reject); NULL = never held, or still waiting
        #[max_length = 16]
        hold_decision -> Nullable<Varchar>,
        /// Who answered: the --by name given to flightstate release or reject, else the operating-system user
        #[max_length = 128]
        hold_decided_by -> Nullable<Varchar>,
        /// When the operator answered (UTC)
        hold_decided_at -> Nullable<Timestamp>,
        /// How many times an operator replayed the message after it was applied (flightstate replay)
        replay_count -> Int4,
        /// Who replayed it last: the --by name given to flightstate replay, else the operating-system user
        #[max_length = 128]
        replayed_by -> Nullable<Varchar>,
        /// When it was replayed last (UTC)
        replayed_at -> Nullable<Timestamp>,
        /// The policy of the last replay as the operator gave it (day, version policy, overrides), e.g. day=2026-09-09 version=force
        #[max_length = 200]
        replay_policy -> Nullable<Varchar>,
        /// When the mailbox received the message (CMINMSGS_DATE_RECEIVED), on flightstate's clock: the pump's time of its read less the row's age by the mailbox server's clock (UTC); recorded by the first attempt that knew it and kept after; NULL for a message applied by flightstate apply, or whose mailbox row had no receive date
        received_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    /// Outbound requests to AODB (e.g. RQFD for an operation day's flights, written to the mailbox COUTMSGS): one row per request
    req_track (req_id) {
        /// Request id, given by the database
        req_id -> Int8,
        /// SIS message type of the request (e.g. RQFD, RQRD)
        #[max_length = 16]
        req_kind -> Varchar,
        /// Operation day asked for; NULL for a request that is not about a day
        operation_day -> Nullable<Date>,
        /// SIS SNDR expected in the answer (normally AODB)
        #[max_length = 32]
        sender -> Nullable<Varchar>,
        /// PENDING = waiting for the answer (at most one per kind); COMPLETED = answered; EXPIRED = replaced by a newer request of the same kind; TIMED_OUT = no answer before ANSWER_DUE_AT
        #[max_length = 16]
        status -> Varchar,
        /// When the request was registered (UTC)
        created_at -> Timestamp,
        /// When the answer was applied, or when the request expired or timed out (UTC)
        completed_at -> Nullable<Timestamp>,
        /// Id of the message (CMINMSGS_ID) whose answer (RESP, or DNLD of the same day) completed the request
        completed_by_message_id -> Nullable<Int8>,
        /// REQ_ID of the newer request that expired this one
        expired_by_req_id -> Nullable<Int8>,
        /// When a PENDING request without an answer becomes TIMED_OUT (UTC): CREATED_AT plus requests.answer_timeout_secs
        answer_due_at -> Nullable<Timestamp>,
        /// SIS META/SEQN of the request message as written to COUTMSGS (6 digits, zero-padded)
        #[max_length = 6]
        seqn -> Nullable<Varchar>,
        /// EFFECT_CALL.CALL_ID of the call that writes the request message into COUTMSGS
        call_id -> Nullable<Int8>,
    }
}

diesel::table! {
    /// Snapshot ledger: one row per operation day that has received a daily snapshot (SCHD DNLD or RESP)
    schd_gen (operation_day) {
        /// The operation day (station local calendar day, as configured)
        operation_day -> Date,
        /// Snapshot version of the day: grows by 1 with every applied snapshot, bumped by compare-and-set so two writers cannot both advance it
        version -> Int8,
        /// Id of the message (mailbox CMINMSGS_ID) of the last applied snapshot; the same message again is a replay and changes nothing
        last_message_id -> Int8,
        /// When the last snapshot of the day was applied (UTC)
        updated_at -> Timestamp,
    }
}

diesel::table! {
    /// The complete flight list of the current snapshot of each operation day: one row per (day, FLID); replaced as a whole by the next snapshot
    schd_gen_flid (operation_day, flid) {
        /// The operation day (SCHD_GEN.OPERATION_DAY)
        operation_day -> Date,
        /// SIS FLID: a flight listed (as an FLTR record) in the day's current snapshot
        flid -> Int8,
    }
}

diesel::table! {
    /// Per inbound sender (META SNDR), what its sequence numbers (META SEQN) did in mailbox order: repeats, gaps, resets; 999999 then 000000 is the protocol's wrap, not an anomaly. Evidence only: SEQN never orders anything
    seqn_evidence (sender) {
        /// META SNDR as sent
        #[max_length = 128]
        sender -> Varchar,
        /// META SEQN of the sender's latest message, as sent
        #[max_length = 64]
        last_seqn -> Varchar,
        /// Message id of that message: a message at or below it was counted already (a retry or a redelivery)
        last_message_id -> Int8,
        /// Messages of the sender counted
        messages -> Int8,
        /// Messages whose SEQN equals the one before
        repeats -> Int8,
        /// Messages whose SEQN skipped numbers ahead of the one before
        gaps -> Int8,
        /// Numbers skipped by all gaps together
        missing -> Int8,
        /// Messages whose SEQN went back (other than the wrap 999999 to 000000)
        resets -> Int8,
        /// Messages whose SEQN is not a number (not compared)
        unreadable -> Int8,
        /// What the latest anomaly was: REPEAT, GAP, RESET or UNREADABLE
        #[max_length = 16]
        last_anomaly -> Nullable<Varchar>,
        /// Message id of the latest anomaly
        last_anomaly_id -> Nullable<Int8>,
        /// When the row was last written (UTC)
        updated_at -> Timestamp,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    effect_call,
    flight_bridge,
    flight_carousel,
    flight_chock,
    flight_chute,
    flight_counter,
    flight_delay,
    flight_gate,
    flight_route_point,
    flight_schd,
    flight_stand,
    flight_version_floor,
    kafka_msg,
    kafka_schd,
    operator_action,
    order_evidence,
    pipeline_lock,
    proc_state,
    req_track,
    schd_gen,
    schd_gen_flid,
    seqn_evidence,
);
