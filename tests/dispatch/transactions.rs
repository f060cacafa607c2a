//! What the test broker does with Kafka transactions: the measurement behind
//! the decision "no Kafka transactions" (docs/kafka.md, "Exactly once").
//! A transactional producer (the `transactional.id` a dispatcher per station
//! would use) tries to commit one record; tansu never commits it. The day it
//! does, this test fails, and the decision is to be looked at again.

use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

use crate::dispatching::{outbox_of_a_day, tansu, tansu_dispatcher};

#[test]
fn the_test_broker_commits_no_kafka_transaction() {
    // The topic exists (created as the dispatcher creates its own), so that
    // a failure below is about the transaction, not a missing topic.
    let (_db, store) = outbox_of_a_day(1);
    let (_dispatcher, (state_topic, _)) = tansu_dispatcher(store, "transactions");

    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", tansu())
        .set("transactional.id", format!("{state_topic}-station"))
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .create()
        .expect("a transactional producer's configuration");
    let wait = Duration::from_secs(20);
    let committed = producer
        .init_transactions(wait)
        .map_err(|e| format!("init_transactions: {e}"))
        .and_then(|()| {
            producer
                .begin_transaction()
                .map_err(|e| format!("begin_transaction: {e}"))
        })
        .and_then(|()| {
            producer
                .send(BaseRecord::to(&state_topic).key("1").payload("{}"))
                .map_err(|(e, _)| format!("send: {e}"))
        })
        .and_then(|()| {
            producer
                .commit_transaction(wait)
                .map_err(|e| format!("commit_transaction: {e}"))
        });
    match committed {
        Ok(()) => panic!(
            "the broker committed a Kafka transaction: revisit docs/kafka.md, \"Exactly once\""
        ),
        Err(step) => eprintln!("as measured, no transaction commits here: {step}"),
    }
}
