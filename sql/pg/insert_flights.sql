-- name: insert_flights
-- Inserts the full main row of many new flights in one statement: one array
-- per column, rows matched by position (UNNEST). The caller read the flights
-- absent in this transaction, under PIPELINE_LOCK; a FLID that does have a
-- row fails the statement (unique violation, 23505) rather than being
-- overwritten.
-- binds:
--   $1 bigint[]  flid
--   $2 varchar[]  alcd
--   $3 varchar[]  alsc
--   $4 varchar[]  flno
--   $5 varchar[]  mvin
--   $6 timestamp[]  sodt
--   $7 varchar[]  flty
--   $8 varchar[]  flin
--   $9 varchar[]  acft
--   $10 varchar[]  reno
--   $11 varchar[]  taop
--   $12 varchar[]  tafl
--   $13 bigint[]  taid
--   $14 varchar[]  trml
--   $15 integer[]  maxp
--   $16 varchar[]  csop
--   $17 varchar[]  csft
--   $18 bigint[]  maid
--   $19 timestamp[]  estt
--   $20 timestamp[]  actt
--   $21 varchar[]  stnd
--   $22 bigint[]  phag
--   $23 bigint[]  fhag
--   $24 bigint[]  mhag
--   $25 timestamp[]  cncl
--   $26 varchar[]  remc
--   $27 timestamp[]  botm
--   $28 timestamp[]  lacl
--   $29 timestamp[]  fint
--   $30 timestamp[]  appt
--   $31 timestamp[]  egsr
--   $32 timestamp[]  egst
--   $33 integer[]  vipp
--   $34 integer[]  vipr
--   $35 integer[]  lbno
--   $36 numeric[]  lbwt
--   $37 integer[]  paxc
--   $38 varchar[]  exsc
--   $39 varchar[]  exsr
--   $40 varchar[]  ftss
--   $41 timestamp[]  pedt
--   $42 timestamp[]  neat
--   $43 timestamp[]  padt
--   $44 timestamp[]  naat
--   $45 timestamp[]  cobt
--   $46 timestamp[]  tobt
--   $47 timestamp[]  eobt
--   $48 timestamp[]  iest
--   $49 timestamp[]  ctot
--   $50 varchar[]  runw
--   $51 varchar[]  ffid
--   $52 varchar[]  fdiv_ddes
--   $53 varchar[]  fdiv_ddir
--   $54 varchar[]  fdiv
--   $55 varchar[]  fret_reid
--   $56 varchar[]  fret
--   $57 varchar[]  flab_ares
--   $58 varchar[]  flab
--   $59 timestamp[]  port_open_potm
--   $60 timestamp[]  port_close_potm
--   $61 date[]  operation_day
--   $62 bigint[]  state_version
--   $63 bigint[]  last_message_id
--   $64 timestamp[]  updated_at
--   $65 char[]  state_digest (SHA-256 hex of the state written)
--   $66 text[]  state_document (the JSON the state topic carries, of the state written)
-- returns: nothing
-- locks: the FLIGHT_SCHD rows inserted (row locks, until commit)
INSERT INTO flight_schd (
    flid,
    alcd,
    alsc,
    flno,
    mvin,
    sodt,
    flty,
    flin,
    acft,
    reno,
    taop,
    tafl,
    taid,
    trml,
    maxp,
    csop,
    csft,
    maid,
    estt,
    actt,
    stnd,
    phag,
    fhag,
    mhag,
    cncl,
    remc,
    botm,
    lacl,
    fint,
    appt,
    egsr,
    egst,
    vipp,
    vipr,
    lbno,
    lbwt,
    paxc,
    exsc,
    exsr,
    ftss,
    pedt,
    neat,
    padt,
    naat,
    cobt,
    tobt,
    eobt,
    iest,
    ctot,
    runw,
    ffid,
    fdiv_ddes,
    fdiv_ddir,
    fdiv,
    fret_reid,
    fret,
    flab_ares,
    flab,
    port_open_potm,
    port_close_potm,
    operation_day,
    state_version,
    last_message_id,
    updated_at,
    state_digest,
    state_document
)
SELECT * FROM UNNEST(
    $1::bigint[],
    $2::varchar[],
    $3::varchar[],
    $4::varchar[],
    $5::varchar[],
    $6::timestamp[],
    $7::varchar[],
    $8::varchar[],
    $9::varchar[],
    $10::varchar[],
    $11::varchar[],
    $12::varchar[],
    $13::bigint[],
    $14::varchar[],
    $15::integer[],
    $16::varchar[],
    $17::varchar[],
    $18::bigint[],
    $19::timestamp[],
    $20::timestamp[],
    $21::varchar[],
    $22::bigint[],
    $23::bigint[],
    $24::bigint[],
    $25::timestamp[],
    $26::varchar[],
    $27::timestamp[],
    $28::timestamp[],
    $29::timestamp[],
    $30::timestamp[],
    $31::timestamp[],
    $32::timestamp[],
    $33::integer[],
    $34::integer[],
    $35::integer[],
    $36::numeric[],
    $37::integer[],
    $38::varchar[],
    $39::varchar[],
    $40::varchar[],
    $41::timestamp[],
    $42::timestamp[],
    $43::timestamp[],
    $44::timestamp[],
    $45::timestamp[],
    $46::timestamp[],
    $47::timestamp[],
    $48::timestamp[],
    $49::timestamp[],
    $50::varchar[],
    $51::varchar[],
    $52::varchar[],
    $53::varchar[],
    $54::varchar[],
    $55::varchar[],
    $56::varchar[],
    $57::varchar[],
    $58::varchar[],
    $59::timestamp[],
    $60::timestamp[],
    $61::date[],
    $62::bigint[],
    $63::bigint[],
    $64::timestamp[],
    $65::char(64)[],
    $66::text[]
)
