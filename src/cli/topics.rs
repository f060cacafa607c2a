//! `flightstate topics`: reads the state and change topics from the
//! beginning to their current end and prints what they hold — messages per
//! kind and flights per latest kind. For the demo and for operators; it
//! joins no consumer group and commits nothing.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use flightstate::config::Config;
use flightstate::dispatch::EVENT_KIND_HEADER;
use flightstate::kafka::KafkaClient;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{Offset, TopicPartitionList};

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    let deadline = Instant::now() + Duration::from_secs(opts.timeout_secs);
    for topic in [&config.kafka.state_topic, &config.kafka.change_topic] {
        let counts = read_topic(&config.kafka_client()?, topic, deadline)?;
        let mut kinds: Vec<_> = counts.by_kind.into_iter().collect();
        kinds.sort();
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let mut latest: HashMap<&str, usize> = HashMap::new();
        for kind in counts.latest_by_key.values() {
            *latest.entry(kind.as_str()).or_default() += 1;
        }
        let mut latest: Vec<String> = latest.iter().map(|(k, n)| format!("{k} {n}")).collect();
        latest.sort();
        println!(
            "{topic}: {} messages ({}); {} keys, by latest kind: {}",
            counts.messages,
            kinds.join(", "),
            counts.latest_by_key.len(),
            latest.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Default)]
struct Counts {
    messages: usize,
    by_kind: HashMap<String, usize>,
    latest_by_key: HashMap<Vec<u8>, String>,
}

fn read_topic(kafka: &KafkaClient, topic: &str, deadline: Instant) -> anyhow::Result<Counts> {
    let consumer: BaseConsumer = kafka
        .config()
        .set("group.id", "flightstate-topics")
        .set("enable.auto.commit", "false")
        .create()
        .context("cannot create a kafka consumer")?;
    let metadata = consumer
        .fetch_metadata(Some(topic), Duration::from_secs(10))
        .with_context(|| format!("cannot read the metadata of topic `{topic}`"))?;
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    let mut assignment = TopicPartitionList::new();
    let mut remaining = 0i64;
    let mut ends = HashMap::new();
    for partition in &partitions {
        let (low, high) = consumer
            .fetch_watermarks(topic, *partition, Duration::from_secs(10))
            .with_context(|| format!("cannot read the offsets of `{topic}`"))?;
        remaining += high - low;
        ends.insert(*partition, high);
        assignment.add_partition_offset(topic, *partition, Offset::Offset(low))?;
    }
    consumer.assign(&assignment)?;
    let mut counts = Counts::default();
    // Some brokers (tansu) report a high watermark that trails the last
    // record of a batch: after reaching it, read on until a second of quiet.
    let mut quiet = 0;
    while remaining > 0 || quiet < 4 {
        anyhow::ensure!(
            Instant::now() < deadline,
            "`{topic}`: {remaining} messages not read in time"
        );
        let Some(message) = consumer.poll(Duration::from_millis(250)) else {
            quiet += 1;
            continue;
        };
        quiet = 0;
        let message = message.with_context(|| format!("cannot read `{topic}`"))?;
        if ends
            .get(&message.partition())
            .is_some_and(|end| message.offset() < *end)
        {
            remaining -= 1;
        }
        let kind = message
            .headers()
            .and_then(|h| {
                h.iter()
                    .find(|h| h.key == EVENT_KIND_HEADER)
                    .and_then(|h| h.value)
            })
            .map_or_else(
                || "?".to_owned(),
                |v| String::from_utf8_lossy(v).into_owned(),
            );
        counts.messages += 1;
        *counts.by_kind.entry(kind.clone()).or_default() += 1;
        if let Some(key) = message.key() {
            counts.latest_by_key.insert(key.to_vec(), kind);
        }
    }
    Ok(counts)
}
