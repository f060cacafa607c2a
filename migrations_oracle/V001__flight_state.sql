-- Oracle 11g mirror of migrations_pg/2026-11-29-000001_flight_state/up.sql (docs/oracle.md).
-- Run by `flightstate migrate`, or by a DBA in SQL*Plus as it is (`@V001__flight_state.sql`), as the schema
-- owner, after V000. DDL is not transactional in Oracle: SQL*Plus stops at the first error
-- (WHENEVER below) and the script records itself in FLIGHTSTATE_MIGRATION only at its end, so
-- a half-applied script is one without its APPLIED row; `flightstate migrate` also records
-- each statement it completes and resumes after the last one.
WHENEVER SQLERROR EXIT FAILURE
SET DEFINE OFF

-- The current state of every flight: one main row per FLID (FLIGHT_SCHD) plus one detail
-- table per repeating group of the SIS flight record (PROTOCOL §4.3).
--
-- Naming: a column that holds an SIS element is named after the element; an attribute of an
-- element is ELEMENT_ATTR. Times are station-local wall-clock times exactly as AODB sends them
-- (ddMMMyyHHmm has minute precision, so DATE); bookkeeping times are UTC.
-- Detail tables have no foreign key to FLIGHT_SCHD: every collection is written and deleted by
-- explicit group statements (docs/data-model.md, "Decisions").

-- The list type that statements bind a set of FLIDs (or other ids) as, one bind instead of an
-- IN list (11g allows at most 1000 items in one): WHERE FLID IN (SELECT COLUMN_VALUE FROM
-- TABLE(:flids)). A SQL type, so that a client can bind it; created first, dropped last.
CREATE TYPE FLIGHTSTATE_ID_LIST AS TABLE OF NUMBER(19)
/

CREATE TABLE FLIGHT_SCHD (
    FLID             NUMBER(19)        NOT NULL,
    ALCD             VARCHAR2(16 CHAR),
    ALSC             VARCHAR2(16 CHAR),
    FLNO             VARCHAR2(16 CHAR),
    MVIN             VARCHAR2(16 CHAR),
    SODT             DATE,
    FLTY             VARCHAR2(16 CHAR),
    FLIN             VARCHAR2(16 CHAR),
    ACFT             VARCHAR2(16 CHAR),
    RENO             VARCHAR2(16 CHAR),
    TAOP             VARCHAR2(16 CHAR),
    TAFL             VARCHAR2(16 CHAR),
    TAID             NUMBER(19),
    TRML             VARCHAR2(16 CHAR),
    MAXP             NUMBER(10),
    CSOP             VARCHAR2(16 CHAR),
    CSFT             VARCHAR2(16 CHAR),
    MAID             NUMBER(19),
    ESTT             DATE,
    ACTT             DATE,
    STND             VARCHAR2(16 CHAR),
    PHAG             NUMBER(19),
    FHAG             NUMBER(19),
    MHAG             NUMBER(19),
    CNCL             DATE,
    REMC             VARCHAR2(1000 CHAR),
    BOTM             DATE,
    LACL             DATE,
    FINT             DATE,
    APPT             DATE,
    EGSR             DATE,
    EGST             DATE,
    VIPP             NUMBER(10),
    VIPR             NUMBER(10),
    LBNO             NUMBER(10),
    LBWT             NUMBER(11,2),
    PAXC             NUMBER(10),
    EXSC             VARCHAR2(16 CHAR),
    EXSR             VARCHAR2(1000 CHAR),
    FTSS             VARCHAR2(16 CHAR),
    PEDT             DATE,
    NEAT             DATE,
    PADT             DATE,
    NAAT             DATE,
    COBT             DATE,
    TOBT             DATE,
    EOBT             DATE,
    IEST             DATE,
    CTOT             DATE,
    RUNW             VARCHAR2(16 CHAR),
    FFID             VARCHAR2(64 CHAR),
    FDIV_DDES        VARCHAR2(16 CHAR),
    FDIV_DDIR        VARCHAR2(16 CHAR),
    FDIV             VARCHAR2(1000 CHAR),
    FRET_REID        VARCHAR2(16 CHAR),
    FRET             VARCHAR2(1000 CHAR),
    FLAB_ARES        VARCHAR2(16 CHAR),
    FLAB             VARCHAR2(1000 CHAR),
    PORT_OPEN_POTM   DATE,
    PORT_CLOSE_POTM  DATE,
    OPERATION_DAY    DATE,
    STATE_VERSION    NUMBER(19)        NOT NULL,
    LAST_MESSAGE_ID  NUMBER(19)        NOT NULL,
    UPDATED_AT       DATE  NOT NULL,
    CONSTRAINT FLIGHT_SCHD_PK PRIMARY KEY (FLID),
    CONSTRAINT FLIGHT_SCHD_VERSION_CK CHECK (STATE_VERSION >= 0)
);

-- The set-difference delete of a snapshot is guarded by the operation day.
CREATE INDEX FLIGHT_SCHD_OPDAY_IX ON FLIGHT_SCHD (OPERATION_DAY);

COMMENT ON TABLE FLIGHT_SCHD IS 'Current state of each flight: one row per AODB flight id (FLID) with every scalar element of the SIS flight record (FLTR / FLOP body). Repeating groups live in the FLIGHT_* detail tables.';
COMMENT ON COLUMN FLIGHT_SCHD.FLID IS 'SIS FLID: AODB flight id, the one key of a flight';
COMMENT ON COLUMN FLIGHT_SCHD.ALCD IS 'SIS ALCD: airline IATA code';
COMMENT ON COLUMN FLIGHT_SCHD.ALSC IS 'SIS ALSC: airline subcompany code';
COMMENT ON COLUMN FLIGHT_SCHD.FLNO IS 'SIS FLNO: flight number including the airline (e.g. YG9028)';
COMMENT ON COLUMN FLIGHT_SCHD.MVIN IS 'SIS MVIN: movement, A = arrival, D = departure';
COMMENT ON COLUMN FLIGHT_SCHD.SODT IS 'SIS SODT: scheduled operation date-time, STA of an arrival or STD of a departure (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.FLTY IS 'SIS FLTY: flight type (FLTL code, e.g. W, C, P)';
COMMENT ON COLUMN FLIGHT_SCHD.FLIN IS 'SIS FLIN: D = domestic, I = international, M = mixed';
COMMENT ON COLUMN FLIGHT_SCHD.ACFT IS 'SIS ACFT: aircraft IATA type (e.g. 733)';
COMMENT ON COLUMN FLIGHT_SCHD.RENO IS 'SIS RENO: aircraft registration (tail number)';
COMMENT ON COLUMN FLIGHT_SCHD.TAOP IS 'SIS TAOP: airline of the turnaround (linked) flight';
COMMENT ON COLUMN FLIGHT_SCHD.TAFL IS 'SIS TAFL: flight number of the turnaround (linked) flight';
COMMENT ON COLUMN FLIGHT_SCHD.TAID IS 'SIS TAID: FLID of the turnaround (linked) flight';
COMMENT ON COLUMN FLIGHT_SCHD.TRML IS 'SIS TRML: terminal';
COMMENT ON COLUMN FLIGHT_SCHD.MAXP IS 'SIS MAXP: maximum passengers (seat capacity)';
COMMENT ON COLUMN FLIGHT_SCHD.CSOP IS 'SIS CSOP: operating airline of the codeshare master flight';
COMMENT ON COLUMN FLIGHT_SCHD.CSFT IS 'SIS CSFT: flight number of the codeshare master flight';
COMMENT ON COLUMN FLIGHT_SCHD.MAID IS 'SIS MAID: FLID of the codeshare master flight';
COMMENT ON COLUMN FLIGHT_SCHD.ESTT IS 'SIS ESTT: estimated time, ETA of an arrival or ETD of a departure (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.ACTT IS 'SIS ACTT: actual time, ATA of an arrival or ATD of a departure (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.STND IS 'SIS STND: current (actual) stand';
COMMENT ON COLUMN FLIGHT_SCHD.PHAG IS 'SIS PHAG: passenger handling agent (ORGN id)';
COMMENT ON COLUMN FLIGHT_SCHD.FHAG IS 'SIS FHAG: field (ground) handling agent (ORGN id)';
COMMENT ON COLUMN FLIGHT_SCHD.MHAG IS 'SIS MHAG: maintenance handling agent (ORGN id)';
COMMENT ON COLUMN FLIGHT_SCHD.CNCL IS 'SIS CNCL: cancellation time (station local); set = the flight is cancelled, NULL = not cancelled';
COMMENT ON COLUMN FLIGHT_SCHD.REMC IS 'SIS REMC: free-text remarks';
COMMENT ON COLUMN FLIGHT_SCHD.BOTM IS 'SIS BOTM: boarding open time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.LACL IS 'SIS LACL: last call time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.FINT IS 'SIS FINT: final call time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.APPT IS 'SIS APPT: approved time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.EGSR IS 'SIS EGSR: engine start request time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.EGST IS 'SIS EGST: engine start time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.VIPP IS 'SIS VIPP: number of VIPs on board';
COMMENT ON COLUMN FLIGHT_SCHD.VIPR IS 'SIS VIPR: VIP ranking (one digit)';
COMMENT ON COLUMN FLIGHT_SCHD.LBNO IS 'SIS LBNO: local bag count';
COMMENT ON COLUMN FLIGHT_SCHD.LBWT IS 'SIS LBWT: local bag weight';
COMMENT ON COLUMN FLIGHT_SCHD.PAXC IS 'SIS PAXC: total passenger count';
COMMENT ON COLUMN FLIGHT_SCHD.EXSC IS 'SIS EXSC: external status code';
COMMENT ON COLUMN FLIGHT_SCHD.EXSR IS 'SIS EXSR: external status remark';
COMMENT ON COLUMN FLIGHT_SCHD.FTSS IS 'SIS FTSS: flight status code (STTS)';
COMMENT ON COLUMN FLIGHT_SCHD.PEDT IS 'SIS PEDT: estimated departure from the previous station, for arrivals (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.NEAT IS 'SIS NEAT: estimated arrival at the next station, for departures (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.PADT IS 'SIS PADT: actual departure from the previous station, for arrivals (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.NAAT IS 'SIS NAAT: actual arrival at the next station, for departures (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.COBT IS 'SIS COBT: calculated off-block time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.TOBT IS 'SIS TOBT: target off-block time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.EOBT IS 'SIS EOBT: estimated off-block time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.IEST IS 'SIS IEST: internal estimated time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.CTOT IS 'SIS CTOT: calculated take-off time (station local); sent by FLOP only, never in an FLTR';
COMMENT ON COLUMN FLIGHT_SCHD.RUNW IS 'SIS RUNW: logical runway (e.g. 02L)';
COMMENT ON COLUMN FLIGHT_SCHD.FFID IS 'SIS FFID: readable flight key of the FLOP body (ALCD-FLNO-MVIN-SODT-FLIN), as last received; for log reading only';
COMMENT ON COLUMN FLIGHT_SCHD.FDIV_DDES IS 'SIS FDIV/@DDES: diversion airport';
COMMENT ON COLUMN FLIGHT_SCHD.FDIV_DDIR IS 'SIS FDIV/@DDIR: diversion direction, TO or FROM the diversion airport';
COMMENT ON COLUMN FLIGHT_SCHD.FDIV IS 'SIS FDIV text: diversion reason';
COMMENT ON COLUMN FLIGHT_SCHD.FRET_REID IS 'SIS FRET/@REID: return kind, A = air return, G = ground return';
COMMENT ON COLUMN FLIGHT_SCHD.FRET IS 'SIS FRET text: return reason';
COMMENT ON COLUMN FLIGHT_SCHD.FLAB_ARES IS 'SIS FLAB/@ARES: aborted landing kind, O = overshoot, G = go-around';
COMMENT ON COLUMN FLIGHT_SCHD.FLAB IS 'SIS FLAB text: aborted landing reason';
COMMENT ON COLUMN FLIGHT_SCHD.PORT_OPEN_POTM IS 'SIS PORT/POTM with POID = O: aircraft door open time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.PORT_CLOSE_POTM IS 'SIS PORT/POTM with POID = C: aircraft door close time (station local)';
COMMENT ON COLUMN FLIGHT_SCHD.OPERATION_DAY IS 'Operation day whose daily snapshot (SCHD DNLD/RESP) owns the flight; NULL = not known yet (created by a FLOP or an ad-hoc SCHD ADFT)';
COMMENT ON COLUMN FLIGHT_SCHD.STATE_VERSION IS 'Version of this flight''s state: grows by 1 with every change that altered the flight (an unchanged result bumps nothing); Kafka consumers order by it';
COMMENT ON COLUMN FLIGHT_SCHD.LAST_MESSAGE_ID IS 'Id of the message (mailbox CMINMSGS_ID) that last changed the flight';
COMMENT ON COLUMN FLIGHT_SCHD.UPDATED_AT IS 'When flightstate last changed the flight (UTC)';

CREATE TABLE FLIGHT_GATE (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    GATE        VARCHAR2(16 CHAR),
    PGOT        DATE,
    PGCT        DATE,
    GOTM        DATE,
    GCTM        DATE,
    GTYP        VARCHAR2(16 CHAR),
    CONSTRAINT FLIGHT_GATE_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_GATE IS 'Gate allocations of a flight: one row per SIS GTDT element, in input order';
COMMENT ON COLUMN FLIGHT_GATE.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_GATE.ORDINAL IS 'Position of the GTDT element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_GATE.SOURCE_SEQ IS 'SIS GTDT/@GTNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_GATE.GATE IS 'SIS GATE: gate code';
COMMENT ON COLUMN FLIGHT_GATE.PGOT IS 'SIS PGOT: planned gate open time (station local)';
COMMENT ON COLUMN FLIGHT_GATE.PGCT IS 'SIS PGCT: planned gate close time (station local)';
COMMENT ON COLUMN FLIGHT_GATE.GOTM IS 'SIS GOTM: actual gate open time (station local)';
COMMENT ON COLUMN FLIGHT_GATE.GCTM IS 'SIS GCTM: actual gate close time (station local)';
COMMENT ON COLUMN FLIGHT_GATE.GTYP IS 'SIS GTYP: gate type, D = domestic, I = international';

CREATE TABLE FLIGHT_COUNTER (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    CHKC        VARCHAR2(16 CHAR),
    CCLS        VARCHAR2(16 CHAR),
    PCOT        DATE,
    PCCT        DATE,
    COTM        DATE,
    CCTM        DATE,
    CTYP        VARCHAR2(16 CHAR),
    CONSTRAINT FLIGHT_COUNTER_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_COUNTER IS 'Check-in counter allocations of a flight: one row per SIS CKDT element, in input order';
COMMENT ON COLUMN FLIGHT_COUNTER.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_COUNTER.ORDINAL IS 'Position of the CKDT element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_COUNTER.SOURCE_SEQ IS 'SIS CKDT/@CKNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_COUNTER.CHKC IS 'SIS CHKC: check-in counter code';
COMMENT ON COLUMN FLIGHT_COUNTER.CCLS IS 'SIS CCLS: cabin class served, F / C / Y / X';
COMMENT ON COLUMN FLIGHT_COUNTER.PCOT IS 'SIS PCOT: planned counter open time (station local)';
COMMENT ON COLUMN FLIGHT_COUNTER.PCCT IS 'SIS PCCT: planned counter close time (station local)';
COMMENT ON COLUMN FLIGHT_COUNTER.COTM IS 'SIS COTM: actual counter open time (station local)';
COMMENT ON COLUMN FLIGHT_COUNTER.CCTM IS 'SIS CCTM: actual counter close time (station local)';
COMMENT ON COLUMN FLIGHT_COUNTER.CTYP IS 'SIS CTYP: counter type, D = domestic, I = international';

CREATE TABLE FLIGHT_CAROUSEL (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    BELT        VARCHAR2(16 CHAR),
    BCLS        VARCHAR2(16 CHAR),
    PCOT        DATE,
    PCCT        DATE,
    FBAG        DATE,
    LBAG        DATE,
    BTYP        VARCHAR2(16 CHAR),
    CONSTRAINT FLIGHT_CAROUSEL_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_CAROUSEL IS 'Baggage reclaim carousel allocations of a flight: one row per SIS CLDT element, in input order';
COMMENT ON COLUMN FLIGHT_CAROUSEL.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_CAROUSEL.ORDINAL IS 'Position of the CLDT element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_CAROUSEL.SOURCE_SEQ IS 'SIS CLDT/@CLNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_CAROUSEL.BELT IS 'SIS BELT: reclaim belt (carousel) code';
COMMENT ON COLUMN FLIGHT_CAROUSEL.BCLS IS 'SIS BCLS: cabin class served, F / C / Y / X';
COMMENT ON COLUMN FLIGHT_CAROUSEL.PCOT IS 'SIS PCOT: planned carousel start time (station local)';
COMMENT ON COLUMN FLIGHT_CAROUSEL.PCCT IS 'SIS PCCT: planned carousel end time (station local)';
COMMENT ON COLUMN FLIGHT_CAROUSEL.FBAG IS 'SIS FBAG: first bag on the belt (station local)';
COMMENT ON COLUMN FLIGHT_CAROUSEL.LBAG IS 'SIS LBAG: last bag on the belt (station local)';
COMMENT ON COLUMN FLIGHT_CAROUSEL.BTYP IS 'SIS BTYP: carousel type, D = domestic, I = international';

CREATE TABLE FLIGHT_STAND (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    PSST        VARCHAR2(16 CHAR),
    STST        DATE,
    STET        DATE,
    PSHN        NUMBER(10),
    PSTM        DATE,
    PSID        VARCHAR2(16 CHAR),
    TRTM        DATE,
    CONSTRAINT FLIGHT_STAND_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_STAND IS 'Planned stand allocations of a flight: one row per SIS PSDT element, in input order, with the pushback (PSHT) and tractor-in-place (TIPT) data matched to the stand';
COMMENT ON COLUMN FLIGHT_STAND.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_STAND.ORDINAL IS 'Position of the PSDT element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_STAND.SOURCE_SEQ IS 'SIS PSDT/@PSNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_STAND.PSST IS 'SIS PSST: planned stand code';
COMMENT ON COLUMN FLIGHT_STAND.STST IS 'SIS STST: stand occupation start (station local)';
COMMENT ON COLUMN FLIGHT_STAND.STET IS 'SIS STET: stand occupation end (station local)';
COMMENT ON COLUMN FLIGHT_STAND.PSHN IS 'SIS PSHT/@PSHN: sequence number of the pushback event matched to this stand (PSHT/PUST = PSST)';
COMMENT ON COLUMN FLIGHT_STAND.PSTM IS 'SIS PSHT/PSTM: pushback time from this stand (station local)';
COMMENT ON COLUMN FLIGHT_STAND.PSID IS 'SIS PSHT/PSID: pushback indicator (e.g. IN)';
COMMENT ON COLUMN FLIGHT_STAND.TRTM IS 'SIS TIPT/TRTM: tractor in place at this stand (TIPT/TRST = PSST) (station local)';

CREATE TABLE FLIGHT_CHUTE (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    CHUT        VARCHAR2(16 CHAR),
    CCLS        VARCHAR2(16 CHAR),
    PCBT        DATE,
    PCET        DATE,
    CBTM        DATE,
    CETM        DATE,
    CTYP        VARCHAR2(16 CHAR),
    CONSTRAINT FLIGHT_CHUTE_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_CHUTE IS 'Baggage make-up chute allocations of a flight: one row per SIS CHDT element, in input order';
COMMENT ON COLUMN FLIGHT_CHUTE.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_CHUTE.ORDINAL IS 'Position of the CHDT element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_CHUTE.SOURCE_SEQ IS 'SIS CHDT/@CHNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_CHUTE.CHUT IS 'SIS CHUT: chute code';
COMMENT ON COLUMN FLIGHT_CHUTE.CCLS IS 'SIS CCLS: cabin class served, F / C / Y / X';
COMMENT ON COLUMN FLIGHT_CHUTE.PCBT IS 'SIS PCBT: planned chute begin time (station local)';
COMMENT ON COLUMN FLIGHT_CHUTE.PCET IS 'SIS PCET: planned chute end time (station local)';
COMMENT ON COLUMN FLIGHT_CHUTE.CBTM IS 'SIS CBTM: actual chute begin time (station local)';
COMMENT ON COLUMN FLIGHT_CHUTE.CETM IS 'SIS CETM: actual chute end time (station local)';
COMMENT ON COLUMN FLIGHT_CHUTE.CTYP IS 'SIS CTYP: chute type, D = domestic, I = international';

CREATE TABLE FLIGHT_DELAY (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    DELY_CODE   VARCHAR2(16 CHAR),
    DELY_STRT   DATE,
    DELY_DURA   NUMBER(10),
    DELY        VARCHAR2(1000 CHAR),
    CONSTRAINT FLIGHT_DELAY_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_DELAY IS 'Delays of a flight: one row per SIS DELY element, in input order (FLOP merges them by delay code)';
COMMENT ON COLUMN FLIGHT_DELAY.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_DELAY.ORDINAL IS 'Position of the DELY element in the flight''s delay list (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_DELAY.SOURCE_SEQ IS 'Upstream sequence number; SIS DELY has none, so always NULL (kept for the same shape as every detail table)';
COMMENT ON COLUMN FLIGHT_DELAY.DELY_CODE IS 'SIS DELY/@CODE: delay reason code';
COMMENT ON COLUMN FLIGHT_DELAY.DELY_STRT IS 'SIS DELY/@STRT: delay start (station local)';
COMMENT ON COLUMN FLIGHT_DELAY.DELY_DURA IS 'SIS DELY/@DURA: delay duration in minutes (HHMM converted, 0200 = 120)';
COMMENT ON COLUMN FLIGHT_DELAY.DELY IS 'SIS DELY text: free-text delay comment';

CREATE TABLE FLIGHT_BRIDGE (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    ABDG        VARCHAR2(16 CHAR),
    ABOP        VARCHAR2(16 CHAR),
    AOTM        DATE,
    CONSTRAINT FLIGHT_BRIDGE_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_BRIDGE IS 'Airbridge dock and undock events of a flight: one row per SIS ABTM element, in input order';
COMMENT ON COLUMN FLIGHT_BRIDGE.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_BRIDGE.ORDINAL IS 'Position of the ABTM element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_BRIDGE.SOURCE_SEQ IS 'SIS ABTM/@ASNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_BRIDGE.ABDG IS 'SIS ABDG: airbridge code';
COMMENT ON COLUMN FLIGHT_BRIDGE.ABOP IS 'SIS ABOP: airbridge operation, attach (dock) or detach (undock)';
COMMENT ON COLUMN FLIGHT_BRIDGE.AOTM IS 'SIS AOTM: time of the airbridge operation (station local)';

CREATE TABLE FLIGHT_CHOCK (
    FLID        NUMBER(19)        NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    CHTM        DATE,
    CHID        VARCHAR2(16 CHAR),
    CHST        VARCHAR2(16 CHAR),
    CONSTRAINT FLIGHT_CHOCK_PK PRIMARY KEY (FLID, ORDINAL)
);

COMMENT ON TABLE FLIGHT_CHOCK IS 'Chocks on and off events of a flight: one row per SIS CHOT element, in input order';
COMMENT ON COLUMN FLIGHT_CHOCK.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_CHOCK.ORDINAL IS 'Position of the CHOT element in the message (1 = first); key with FLID';
COMMENT ON COLUMN FLIGHT_CHOCK.SOURCE_SEQ IS 'SIS CHOT/@CSNO: AODB sequence number, stored as sent, never a key';
COMMENT ON COLUMN FLIGHT_CHOCK.CHTM IS 'SIS CHTM: chocks time (station local)';
COMMENT ON COLUMN FLIGHT_CHOCK.CHID IS 'SIS CHID: chocks indicator, ON or OFF';
COMMENT ON COLUMN FLIGHT_CHOCK.CHST IS 'SIS CHST: stand where the chocks were set or removed';

CREATE TABLE FLIGHT_ROUTE_POINT (
    FLID        NUMBER(19)        NOT NULL,
    ROUTE_KIND  VARCHAR2(4 CHAR)    NOT NULL,
    ORDINAL     NUMBER(10)       NOT NULL,
    SOURCE_SEQ  NUMBER(10),
    APCD        VARCHAR2(16 CHAR),
    SCAT        DATE,
    SCDT        DATE,
    CONSTRAINT FLIGHT_ROUTE_POINT_PK PRIMARY KEY (FLID, ROUTE_KIND, ORDINAL),
    CONSTRAINT FLIGHT_ROUTE_POINT_KIND_CK CHECK (ROUTE_KIND IN ('ROUT', 'ERUT'))
);

COMMENT ON TABLE FLIGHT_ROUTE_POINT IS 'Route stops of a flight: SIS ROUT (the other end(s) seen from the home airport) and ERUT (the entire itinerary, home airport included), one row per element, in input order';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.FLID IS 'SIS FLID: the flight (FLIGHT_SCHD.FLID)';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.ROUTE_KIND IS 'Which SIS group the stop came from: ROUT (relative route) or ERUT (entire route)';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.ORDINAL IS 'Position of the element among the flight''s stops of this ROUTE_KIND (1 = first); key with FLID and ROUTE_KIND';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.SOURCE_SEQ IS 'SIS ROUT/@RTNO or ERUT/@RTNO: AODB stop number, stored as sent, never a key (FLOP merges ERUT by it)';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.APCD IS 'SIS APCD: airport IATA code of the stop';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.SCAT IS 'SIS SCAT: scheduled arrival at the stop (local wall-clock time as AODB sends it)';
COMMENT ON COLUMN FLIGHT_ROUTE_POINT.SCDT IS 'SIS SCDT: scheduled departure from the stop (local wall-clock time as AODB sends it)';

-- The last statements: record the script as applied (a DBA's SQL*Plus run and
-- `flightstate migrate` leave the same row).
MERGE INTO FLIGHTSTATE_MIGRATION h
USING (SELECT 1 AS VERSION, 'flight_state' AS NAME FROM DUAL) s
ON (h.VERSION = s.VERSION)
WHEN MATCHED THEN UPDATE SET h.STATUS = 'APPLIED', h.FINISHED_AT = SYS_EXTRACT_UTC(SYSTIMESTAMP)
WHEN NOT MATCHED THEN INSERT (VERSION, NAME, STATUS, STARTED_AT, FINISHED_AT)
    VALUES (s.VERSION, s.NAME, 'APPLIED', SYS_EXTRACT_UTC(SYSTIMESTAMP), SYS_EXTRACT_UTC(SYSTIMESTAMP));
COMMIT;
