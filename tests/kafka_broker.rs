//! The Kafka-protocol broker the suite runs against (tansu, started by
//! `scripts/services`) works with the bundled librdkafka that flightstate
//! is built with: a keyed record produced with an idempotent producer comes
//! back from a consumer, key, value and headers intact.

use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Header, Headers, Message, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

fn brokers() -> String {
    std::env::var("FLIGHTSTATE_TEST_KAFKA_BROKERS").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

/// The broker does not create topics on first use, so tests create theirs.
fn create_topic(name: &str) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", brokers())
        .create()
        .expect("admin client");
    let topic = NewTopic::new(name, 1, TopicReplication::Fixed(1));
    let results = futures_executor::block_on(admin.create_topics([&topic], &AdminOptions::new()))
        .expect("the broker answers CreateTopics (is tansu running? scripts/services)");
    for result in results {
        result
            .map_err(|(t, e)| format!("{t}: {e}"))
            .expect("topic created");
    }
}

#[test]
fn idempotent_produce_then_consume_round_trips() {
    let topic = format!("fs-test-broker-{}", std::process::id());
    create_topic(&topic);
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", brokers())
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("message.timeout.ms", "20000")
        .create()
        .expect("producer");
    let headers = OwnedHeaders::new().insert(Header {
        key: "event-id",
        value: Some("42"),
    });
    producer
        .send(
            BaseRecord::to(&topic)
                .key("15")
                .payload(r#"{"FLID":15}"#)
                .headers(headers),
        )
        .map_err(|(e, _)| e)
        .expect("enqueue");
    producer
        .flush(Duration::from_secs(30))
        .expect("the broker confirms delivery (is tansu running? scripts/services)");
    assert_eq!(producer.in_flight_count(), 0);

    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers())
        .set("group.id", format!("{topic}-reader"))
        .set("enable.auto.commit", "false")
        .set("auto.offset.reset", "earliest")
        .create()
        .expect("consumer");
    consumer.subscribe(&[&topic]).expect("subscribe");
    let deadline = Instant::now() + Duration::from_secs(30);
    let message = loop {
        assert!(Instant::now() < deadline, "no record came back within 30 s");
        match consumer.poll(Duration::from_millis(500)) {
            Some(Ok(message)) => break message.detach(),
            Some(Err(e)) => panic!("consume failed: {e}"),
            None => continue,
        }
    };
    assert_eq!(message.key(), Some(&b"15"[..]));
    assert_eq!(message.payload(), Some(&br#"{"FLID":15}"#[..]));
    let header = message.headers().map(|h| h.get(0));
    assert_eq!(
        header.map(|h| (h.key, h.value)),
        Some(("event-id", Some(&b"42"[..])))
    );
}
