//! The reference data a generated day draws from: airlines, airports, aircraft types,
//! delay and status codes, and the home airport's resources. Plausible for a large Chinese
//! airport (CTU), invented where real data would be a copy of someone's database.

/// An aircraft type as AODB names it (IATA type code) with a typical seat count.
#[derive(Debug)]
pub(crate) struct AircraftType {
    /// IATA type code (ACFT).
    pub code: &'static str,
    /// Seats of a typical cabin (MAXP); each flight varies it a little.
    pub seats: u32,
    /// Wide bodies get more counters, chutes and longer turnarounds.
    pub wide: bool,
}

pub(crate) const AIRCRAFT: &[AircraftType] = &[
    AircraftType {
        code: "319",
        seats: 128,
        wide: false,
    },
    AircraftType {
        code: "320",
        seats: 158,
        wide: false,
    },
    AircraftType {
        code: "32N",
        seats: 186,
        wide: false,
    },
    AircraftType {
        code: "321",
        seats: 194,
        wide: false,
    },
    AircraftType {
        code: "738",
        seats: 176,
        wide: false,
    },
    AircraftType {
        code: "7M8",
        seats: 176,
        wide: false,
    },
    AircraftType {
        code: "CR9",
        seats: 90,
        wide: false,
    },
    AircraftType {
        code: "AJ2",
        seats: 90,
        wide: false,
    },
    AircraftType {
        code: "330",
        seats: 265,
        wide: true,
    },
    AircraftType {
        code: "359",
        seats: 300,
        wide: true,
    },
    AircraftType {
        code: "789",
        seats: 290,
        wide: true,
    },
    AircraftType {
        code: "77W",
        seats: 350,
        wide: true,
    },
];

/// Indices into [`AIRCRAFT`].
const NARROW: &[usize] = &[0, 1, 2, 3, 4];
const A32X: &[usize] = &[0, 1, 2, 3];
const B737: &[usize] = &[4, 5];
const REGIONAL: &[usize] = &[6, 7, 1];
const LONG_HAUL: &[usize] = &[8, 9, 10, 11];
const MIXED: &[usize] = &[1, 3, 8, 9];

/// An airline flying to the home airport.
#[derive(Debug)]
pub(crate) struct Airline {
    /// IATA code (ALCD), also the prefix of its flight numbers.
    pub code: &'static str,
    /// How many of the day's aircraft it operates, relative to the others.
    pub weight: u32,
    /// Based at the home airport: its aircraft fly out and back all day. Otherwise an
    /// aircraft comes in, turns around and leaves.
    pub based: bool,
    /// Share of its routes that are international.
    pub international: f64,
    /// First flight number it uses here; numbers go up in pairs from it.
    pub first_number: u32,
    /// Its fleet (indices into [`AIRCRAFT`]).
    pub fleet: &'static [usize],
    /// Registration prefix (nationality mark).
    pub registration: &'static str,
    /// Its terminal for domestic flights (international flights use T1).
    pub terminal: &'static str,
    /// Its passenger and field handling agent (ORGN ids).
    pub agent: u32,
    /// The airport its visiting aircraft come from and go back to; empty for a random
    /// one of the network.
    pub hub: &'static str,
}

pub(crate) const AIRLINES: &[Airline] = &[
    Airline {
        code: "3U",
        weight: 30,
        based: true,
        international: 0.12,
        first_number: 8001,
        fleet: A32X,
        registration: "B",
        terminal: "T2",
        agent: 110009,
        hub: "",
    },
    Airline {
        code: "CA",
        weight: 16,
        based: true,
        international: 0.15,
        first_number: 4101,
        fleet: MIXED,
        registration: "B",
        terminal: "T2",
        agent: 110001,
        hub: "",
    },
    Airline {
        code: "EU",
        weight: 8,
        based: true,
        international: 0.05,
        first_number: 2201,
        fleet: REGIONAL,
        registration: "B",
        terminal: "T1",
        agent: 110014,
        hub: "",
    },
    Airline {
        code: "TV",
        weight: 5,
        based: true,
        international: 0.0,
        first_number: 9801,
        fleet: A32X,
        registration: "B",
        terminal: "T1",
        agent: 110014,
        hub: "",
    },
    Airline {
        code: "MU",
        weight: 9,
        based: false,
        international: 0.0,
        first_number: 5401,
        fleet: B737,
        registration: "B",
        terminal: "T1",
        agent: 110002,
        hub: "",
    },
    Airline {
        code: "CZ",
        weight: 9,
        based: false,
        international: 0.0,
        first_number: 3401,
        fleet: NARROW,
        registration: "B",
        terminal: "T1",
        agent: 110002,
        hub: "",
    },
    Airline {
        code: "HU",
        weight: 5,
        based: false,
        international: 0.0,
        first_number: 7101,
        fleet: B737,
        registration: "B",
        terminal: "T1",
        agent: 110002,
        hub: "",
    },
    Airline {
        code: "ZH",
        weight: 4,
        based: false,
        international: 0.0,
        first_number: 9401,
        fleet: B737,
        registration: "B",
        terminal: "T2",
        agent: 110001,
        hub: "",
    },
    Airline {
        code: "G5",
        weight: 3,
        based: false,
        international: 0.0,
        first_number: 2601,
        fleet: REGIONAL,
        registration: "B",
        terminal: "T1",
        agent: 110014,
        hub: "",
    },
    Airline {
        code: "8L",
        weight: 3,
        based: false,
        international: 0.0,
        first_number: 9961,
        fleet: B737,
        registration: "B",
        terminal: "T1",
        agent: 110014,
        hub: "",
    },
    Airline {
        code: "SQ",
        weight: 1,
        based: false,
        international: 1.0,
        first_number: 844,
        fleet: LONG_HAUL,
        registration: "9V",
        terminal: "T1",
        agent: 110021,
        hub: "SIN",
    },
    Airline {
        code: "TG",
        weight: 1,
        based: false,
        international: 1.0,
        first_number: 618,
        fleet: MIXED,
        registration: "HS",
        terminal: "T1",
        agent: 110021,
        hub: "BKK",
    },
    Airline {
        code: "KL",
        weight: 1,
        based: false,
        international: 1.0,
        first_number: 891,
        fleet: LONG_HAUL,
        registration: "PH",
        terminal: "T1",
        agent: 110021,
        hub: "AMS",
    },
    Airline {
        code: "QR",
        weight: 1,
        based: false,
        international: 1.0,
        first_number: 866,
        fleet: LONG_HAUL,
        registration: "A7",
        terminal: "T1",
        agent: 110021,
        hub: "DOH",
    },
    Airline {
        code: "KE",
        weight: 1,
        based: false,
        international: 1.0,
        first_number: 817,
        fleet: MIXED,
        registration: "HL",
        terminal: "T1",
        agent: 110021,
        hub: "ICN",
    },
    Airline {
        code: "CX",
        weight: 2,
        based: false,
        international: 1.0,
        first_number: 3401,
        fleet: MIXED,
        registration: "B",
        terminal: "T1",
        agent: 110021,
        hub: "HKG",
    },
];

/// Another airport of the network and its block time from the home airport.
#[derive(Debug)]
pub(crate) struct Airport {
    pub code: &'static str,
    pub international: bool,
    /// Scheduled block time to or from the home airport, minutes.
    pub block: i64,
}

pub(crate) const AIRPORTS: &[Airport] = &[
    Airport {
        code: "PEK",
        international: false,
        block: 170,
    },
    Airport {
        code: "PKX",
        international: false,
        block: 170,
    },
    Airport {
        code: "PVG",
        international: false,
        block: 175,
    },
    Airport {
        code: "SHA",
        international: false,
        block: 170,
    },
    Airport {
        code: "CAN",
        international: false,
        block: 140,
    },
    Airport {
        code: "SZX",
        international: false,
        block: 145,
    },
    Airport {
        code: "KMG",
        international: false,
        block: 85,
    },
    Airport {
        code: "XIY",
        international: false,
        block: 95,
    },
    Airport {
        code: "HGH",
        international: false,
        block: 155,
    },
    Airport {
        code: "LXA",
        international: false,
        block: 130,
    },
    Airport {
        code: "CKG",
        international: false,
        block: 60,
    },
    Airport {
        code: "WUH",
        international: false,
        block: 115,
    },
    Airport {
        code: "NKG",
        international: false,
        block: 145,
    },
    Airport {
        code: "XMN",
        international: false,
        block: 160,
    },
    Airport {
        code: "TAO",
        international: false,
        block: 170,
    },
    Airport {
        code: "URC",
        international: false,
        block: 235,
    },
    Airport {
        code: "HAK",
        international: false,
        block: 140,
    },
    Airport {
        code: "SYX",
        international: false,
        block: 150,
    },
    Airport {
        code: "CSX",
        international: false,
        block: 105,
    },
    Airport {
        code: "DLC",
        international: false,
        block: 200,
    },
    Airport {
        code: "HRB",
        international: false,
        block: 230,
    },
    Airport {
        code: "KWE",
        international: false,
        block: 75,
    },
    Airport {
        code: "LHW",
        international: false,
        block: 95,
    },
    Airport {
        code: "JZH",
        international: false,
        block: 55,
    },
    Airport {
        code: "HKG",
        international: true,
        block: 155,
    },
    Airport {
        code: "MFM",
        international: true,
        block: 150,
    },
    Airport {
        code: "TPE",
        international: true,
        block: 185,
    },
    Airport {
        code: "BKK",
        international: true,
        block: 170,
    },
    Airport {
        code: "SIN",
        international: true,
        block: 280,
    },
    Airport {
        code: "KUL",
        international: true,
        block: 265,
    },
    Airport {
        code: "ICN",
        international: true,
        block: 210,
    },
    Airport {
        code: "NRT",
        international: true,
        block: 260,
    },
    Airport {
        code: "DOH",
        international: true,
        block: 470,
    },
    Airport {
        code: "AMS",
        international: true,
        block: 690,
    },
    Airport {
        code: "KTM",
        international: true,
        block: 150,
    },
];

/// Delay codes (IATA standard delay codes, as DLYL codes) with a comment AODB would carry.
pub(crate) const DELAY_CODES: &[(&str, &str)] = &[
    ("81", "ATFM due to ATC en-route demand/capacity"),
    ("83", "ATFM due to restriction at destination airport"),
    ("93", "aircraft rotation, late arrival of aircraft"),
    ("71", "weather at departure station"),
    ("73", "weather en route or at alternate"),
    ("15", "boarding, discrepancies and paging"),
    ("41", "aircraft defects"),
    ("62", "fuelling/defuelling"),
    ("32", "loading/unloading, bulky baggage"),
    ("87", "airport facilities, stands and gates"),
];

/// External status codes with their remark (EXSC, EXSR).
pub(crate) const EXTERNAL_STATUSES: &[(&str, &str)] = &[
    ("DLY", "delayed"),
    ("WTH", "delayed by weather"),
    ("ATC", "air traffic control restriction"),
    ("TECH", "technical check"),
    ("ONTIME", "on schedule"),
];

/// Remarks (REMC) operators type; some in Chinese, as AODB sends them.
pub(crate) const REMARKS: &[&str] = &[
    "VIP on board",
    "wheelchair passengers x2",
    "经停 none",
    "crew change",
    "请注意 gate change",
    "live animals in hold",
    "fuel uplift requested",
];

/// Resource codes of one terminal.
#[derive(Debug)]
pub(crate) struct TerminalResources {
    pub code: &'static str,
    /// Contact gates, whose stand has the same number and an airbridge.
    pub contact_gates: std::ops::RangeInclusive<u32>,
    /// Bus gates, serving remote stands.
    pub bus_gates: std::ops::RangeInclusive<u32>,
    /// Check-in counter rows (letters), 24 counters each.
    pub counter_rows: &'static [char],
    /// Reclaim belts.
    pub belts: std::ops::RangeInclusive<u32>,
    /// Make-up chutes.
    pub chutes: std::ops::RangeInclusive<u32>,
}

pub(crate) const T1: TerminalResources = TerminalResources {
    code: "T1",
    contact_gates: 101..=132,
    bus_gates: 161..=170,
    counter_rows: &['A', 'B', 'C', 'D', 'E', 'F'],
    belts: 1..=9,
    chutes: 1..=24,
};

pub(crate) const T2: TerminalResources = TerminalResources {
    code: "T2",
    contact_gates: 201..=258,
    bus_gates: 281..=296,
    counter_rows: &['G', 'H', 'J', 'K', 'L', 'M', 'N'],
    belts: 11..=24,
    chutes: 31..=60,
};

/// Remote stands (no airbridge), shared by both terminals.
pub(crate) const REMOTE_STANDS: std::ops::RangeInclusive<u32> = 501..=568;

/// Maintenance handling agents (ORGN ids).
pub(crate) const MAINTENANCE_AGENTS: &[u32] = &[120001, 120002, 120003];

/// Logical runways.
pub(crate) const RUNWAYS: &[&str] = &["02L", "02R", "20L", "20R"];
