-- name: upsert_flights
-- Writes the full main row of many flights: one batch entry per flight, sent
-- by the oracle crate's batch API (array DML, one round trip per batch). A new
-- FLID is inserted, an existing one has every column but the key replaced
-- (the caller computed the full new state, so a column the state lacks
-- becomes NULL on purpose). MERGE never updates FLID, the column of its ON.
-- STATE_DOCUMENT is not here: a CLOB bind stays out of select lists (USING's
-- SELECT … FROM DUAL), so the same batch then runs update_state_documents,
-- which writes it by FLID; a new row has it NULL until then, inside the
-- transaction.
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
-- returns: nothing
-- locks: the FLIGHT_SCHD rows written (row locks, until commit)
MERGE INTO FLIGHT_SCHD f
USING (
    SELECT
        :flid AS FLID,
        :alcd AS ALCD,
        :alsc AS ALSC,
        :flno AS FLNO,
        :mvin AS MVIN,
        :sodt AS SODT,
        :flty AS FLTY,
        :flin AS FLIN,
        :acft AS ACFT,
        :reno AS RENO,
        :taop AS TAOP,
        :tafl AS TAFL,
        :taid AS TAID,
        :trml AS TRML,
        :maxp AS MAXP,
        :csop AS CSOP,
        :csft AS CSFT,
        :maid AS MAID,
        :estt AS ESTT,
        :actt AS ACTT,
        :stnd AS STND,
        :phag AS PHAG,
        :fhag AS FHAG,
        :mhag AS MHAG,
        :cncl AS CNCL,
        :remc AS REMC,
        :botm AS BOTM,
        :lacl AS LACL,
        :fint AS FINT,
        :appt AS APPT,
        :egsr AS EGSR,
        :egst AS EGST,
        :vipp AS VIPP,
        :vipr AS VIPR,
        :lbno AS LBNO,
        :lbwt AS LBWT,
        :paxc AS PAXC,
        :exsc AS EXSC,
        :exsr AS EXSR,
        :ftss AS FTSS,
        :pedt AS PEDT,
        :neat AS NEAT,
        :padt AS PADT,
        :naat AS NAAT,
        :cobt AS COBT,
        :tobt AS TOBT,
        :eobt AS EOBT,
        :iest AS IEST,
        :ctot AS CTOT,
        :runw AS RUNW,
        :ffid AS FFID,
        :fdiv_ddes AS FDIV_DDES,
        :fdiv_ddir AS FDIV_DDIR,
        :fdiv AS FDIV,
        :fret_reid AS FRET_REID,
        :fret AS FRET,
        :flab_ares AS FLAB_ARES,
        :flab AS FLAB,
        :port_open_potm AS PORT_OPEN_POTM,
        :port_close_potm AS PORT_CLOSE_POTM,
        :operation_day AS OPERATION_DAY,
        :state_version AS STATE_VERSION,
        :last_message_id AS LAST_MESSAGE_ID,
        :updated_at AS UPDATED_AT,
        :state_digest AS STATE_DIGEST
    FROM DUAL
) s
ON (f.FLID = s.FLID)
WHEN MATCHED THEN UPDATE SET
    f.ALCD = s.ALCD,
    f.ALSC = s.ALSC,
    f.FLNO = s.FLNO,
    f.MVIN = s.MVIN,
    f.SODT = s.SODT,
    f.FLTY = s.FLTY,
    f.FLIN = s.FLIN,
    f.ACFT = s.ACFT,
    f.RENO = s.RENO,
    f.TAOP = s.TAOP,
    f.TAFL = s.TAFL,
    f.TAID = s.TAID,
    f.TRML = s.TRML,
    f.MAXP = s.MAXP,
    f.CSOP = s.CSOP,
    f.CSFT = s.CSFT,
    f.MAID = s.MAID,
    f.ESTT = s.ESTT,
    f.ACTT = s.ACTT,
    f.STND = s.STND,
    f.PHAG = s.PHAG,
    f.FHAG = s.FHAG,
    f.MHAG = s.MHAG,
    f.CNCL = s.CNCL,
    f.REMC = s.REMC,
    f.BOTM = s.BOTM,
    f.LACL = s.LACL,
    f.FINT = s.FINT,
    f.APPT = s.APPT,
    f.EGSR = s.EGSR,
    f.EGST = s.EGST,
    f.VIPP = s.VIPP,
    f.VIPR = s.VIPR,
    f.LBNO = s.LBNO,
    f.LBWT = s.LBWT,
    f.PAXC = s.PAXC,
    f.EXSC = s.EXSC,
    f.EXSR = s.EXSR,
    f.FTSS = s.FTSS,
    f.PEDT = s.PEDT,
    f.NEAT = s.NEAT,
    f.PADT = s.PADT,
    f.NAAT = s.NAAT,
    f.COBT = s.COBT,
    f.TOBT = s.TOBT,
    f.EOBT = s.EOBT,
    f.IEST = s.IEST,
    f.CTOT = s.CTOT,
    f.RUNW = s.RUNW,
    f.FFID = s.FFID,
    f.FDIV_DDES = s.FDIV_DDES,
    f.FDIV_DDIR = s.FDIV_DDIR,
    f.FDIV = s.FDIV,
    f.FRET_REID = s.FRET_REID,
    f.FRET = s.FRET,
    f.FLAB_ARES = s.FLAB_ARES,
    f.FLAB = s.FLAB,
    f.PORT_OPEN_POTM = s.PORT_OPEN_POTM,
    f.PORT_CLOSE_POTM = s.PORT_CLOSE_POTM,
    f.OPERATION_DAY = s.OPERATION_DAY,
    f.STATE_VERSION = s.STATE_VERSION,
    f.LAST_MESSAGE_ID = s.LAST_MESSAGE_ID,
    f.UPDATED_AT = s.UPDATED_AT,
    f.STATE_DIGEST = s.STATE_DIGEST
WHEN NOT MATCHED THEN INSERT (
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
    STATE_DIGEST
)
VALUES (
    s.FLID,
    s.ALCD,
    s.ALSC,
    s.FLNO,
    s.MVIN,
    s.SODT,
    s.FLTY,
    s.FLIN,
    s.ACFT,
    s.RENO,
    s.TAOP,
    s.TAFL,
    s.TAID,
    s.TRML,
    s.MAXP,
    s.CSOP,
    s.CSFT,
    s.MAID,
    s.ESTT,
    s.ACTT,
    s.STND,
    s.PHAG,
    s.FHAG,
    s.MHAG,
    s.CNCL,
    s.REMC,
    s.BOTM,
    s.LACL,
    s.FINT,
    s.APPT,
    s.EGSR,
    s.EGST,
    s.VIPP,
    s.VIPR,
    s.LBNO,
    s.LBWT,
    s.PAXC,
    s.EXSC,
    s.EXSR,
    s.FTSS,
    s.PEDT,
    s.NEAT,
    s.PADT,
    s.NAAT,
    s.COBT,
    s.TOBT,
    s.EOBT,
    s.IEST,
    s.CTOT,
    s.RUNW,
    s.FFID,
    s.FDIV_DDES,
    s.FDIV_DDIR,
    s.FDIV,
    s.FRET_REID,
    s.FRET,
    s.FLAB_ARES,
    s.FLAB,
    s.PORT_OPEN_POTM,
    s.PORT_CLOSE_POTM,
    s.OPERATION_DAY,
    s.STATE_VERSION,
    s.LAST_MESSAGE_ID,
    s.UPDATED_AT,
    s.STATE_DIGEST
)
