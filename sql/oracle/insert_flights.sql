-- name: insert_flights
-- Inserts the full main row of many new flights: one batch entry per flight,
-- sent by the oracle crate's batch API (array DML, one round trip per batch).
-- The caller read the flights absent in this transaction, under
-- PIPELINE_LOCK; a FLID that does have a row fails the statement (ORA-00001,
-- unique constraint) rather than being overwritten.
-- binds (per batch entry):
--   :flid number(19)
--   :alcd varchar2
--   :alsc varchar2
--   :flno varchar2
--   :mvin varchar2
--   :sodt date
--   :flty varchar2
--   :flin varchar2
--   :acft varchar2
--   :reno varchar2
--   :taop varchar2
--   :tafl varchar2
--   :taid number(19)
--   :trml varchar2
--   :maxp number(10)
--   :csop varchar2
--   :csft varchar2
--   :maid number(19)
--   :estt date
--   :actt date
--   :stnd varchar2
--   :phag number(19)
--   :fhag number(19)
--   :mhag number(19)
--   :cncl date
--   :remc varchar2
--   :botm date
--   :lacl date
--   :fint date
--   :appt date
--   :egsr date
--   :egst date
--   :vipp number(10)
--   :vipr number(10)
--   :lbno number(10)
--   :lbwt number(11,2)
--   :paxc number(10)
--   :exsc varchar2
--   :exsr varchar2
--   :ftss varchar2
--   :pedt date
--   :neat date
--   :padt date
--   :naat date
--   :cobt date
--   :tobt date
--   :eobt date
--   :iest date
--   :ctot date
--   :runw varchar2
--   :ffid varchar2
--   :fdiv_ddes varchar2
--   :fdiv_ddir varchar2
--   :fdiv varchar2
--   :fret_reid varchar2
--   :fret varchar2
--   :flab_ares varchar2
--   :flab varchar2
--   :port_open_potm date
--   :port_close_potm date
--   :operation_day date
--   :state_version number(19)
--   :last_message_id number(19)
--   :updated_at date
--   :state_digest varchar2(64)  (lower-case hex SHA-256 of the state written)
--   :state_document clob  (the JSON the state topic carries, of the state written)
-- returns: nothing
-- locks: the FLIGHT_SCHD rows inserted (row locks, until commit)
INSERT INTO FLIGHT_SCHD (
    FLID,
    ALCD,
    ALSC,
    FLNO,
    MVIN,
    SODT,
    FLTY,
    FLIN,
    ACFT,
    RENO,
    TAOP,
    TAFL,
    TAID,
    TRML,
    MAXP,
    CSOP,
    CSFT,
    MAID,
    ESTT,
    ACTT,
    STND,
    PHAG,
    FHAG,
    MHAG,
    CNCL,
    REMC,
    BOTM,
    LACL,
    FINT,
    APPT,
    EGSR,
    EGST,
    VIPP,
    VIPR,
    LBNO,
    LBWT,
    PAXC,
    EXSC,
    EXSR,
    FTSS,
    PEDT,
    NEAT,
    PADT,
    NAAT,
    COBT,
    TOBT,
    EOBT,
    IEST,
    CTOT,
    RUNW,
    FFID,
    FDIV_DDES,
    FDIV_DDIR,
    FDIV,
    FRET_REID,
    FRET,
    FLAB_ARES,
    FLAB,
    PORT_OPEN_POTM,
    PORT_CLOSE_POTM,
    OPERATION_DAY,
    STATE_VERSION,
    LAST_MESSAGE_ID,
    UPDATED_AT,
    STATE_DIGEST,
    STATE_DOCUMENT
)
VALUES (
    :flid,
    :alcd,
    :alsc,
    :flno,
    :mvin,
    :sodt,
    :flty,
    :flin,
    :acft,
    :reno,
    :taop,
    :tafl,
    :taid,
    :trml,
    :maxp,
    :csop,
    :csft,
    :maid,
    :estt,
    :actt,
    :stnd,
    :phag,
    :fhag,
    :mhag,
    :cncl,
    :remc,
    :botm,
    :lacl,
    :fint,
    :appt,
    :egsr,
    :egst,
    :vipp,
    :vipr,
    :lbno,
    :lbwt,
    :paxc,
    :exsc,
    :exsr,
    :ftss,
    :pedt,
    :neat,
    :padt,
    :naat,
    :cobt,
    :tobt,
    :eobt,
    :iest,
    :ctot,
    :runw,
    :ffid,
    :fdiv_ddes,
    :fdiv_ddir,
    :fdiv,
    :fret_reid,
    :fret,
    :flab_ares,
    :flab,
    :port_open_potm,
    :port_close_potm,
    :operation_day,
    :state_version,
    :last_message_id,
    :updated_at,
    :state_digest,
    :state_document
)
