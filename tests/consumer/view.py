#!/usr/bin/env python3
"""The state topic's view, rebuilt by a client that shares no code with
flightstate: kafka-python, the rule of docs/kafka.md ("What a consumer
does") written again from the text alone.

Reads every partition of the state topic from its first offset to its end,
keeps per FLID the record with the highest (STATE_VERSION, UPDATED_AT),
drops the flights whose record is a tombstone, and prints the view as JSON
(FLID -> value) on stdout. A record of a major schema version other than 1
stops it (exit 2). tests/consumer.rs runs it and compares its view with the
state database.

    python3 tests/consumer/view.py --brokers 127.0.0.1:9092 --topic flight.state
"""

import argparse
import json
import sys
import time

from kafka import KafkaConsumer, TopicPartition

SUPPORTED_MAJOR = 1
# Polls without a record once the end is reached, before the end is asked
# again: records may still come, and a broker (tansu) may report an end that
# trails the last record of a batch for a moment.
QUIET_POLLS = 3
READ_LIMIT_SECS = 120


def header(message, name):
    for key, value in message.headers or []:
        if key == name:
            return value.decode("utf-8") if value is not None else None
    return None


def apply(view, message):
    """Applies one record to view: {flid: ((version, updated_at), value or None)}."""
    at = f"{message.topic}/{message.partition}@{message.offset}"
    version = header(message, "schema-version")
    if version is None:
        sys.exit(f"{at}: a record without the schema-version header")
    if version.split(".")[0] != str(SUPPORTED_MAJOR):
        print(f"{at}: schema-version {version}, this client reads major version "
              f"{SUPPORTED_MAJOR} only", file=sys.stderr)
        sys.exit(2)
    value = json.loads(message.value)
    flid = value["FLID"]
    if message.key is None or message.key.decode("utf-8") != str(flid):
        sys.exit(f"{at}: key {message.key!r} is not the FLID {flid}")
    # UPDATED_AT is YYYY-MM-DDTHH:MM:SS, UTC: text order is time order.
    order = (value["STATE_VERSION"], value["UPDATED_AT"])
    held = view.get(flid)
    if held is not None and held[0] >= order:
        return
    # A tombstone is remembered (its version), not dropped: a lower state
    # read after it must not bring the flight back.
    view[flid] = (order, None if value.get("DELETED") is True else value)


def read_to_end(brokers, topic):
    consumer = KafkaConsumer(
        bootstrap_servers=brokers,
        # Named rather than guessed: kafka-python 2.0.2 otherwise probes the
        # broker at connect; 2.5 has record headers (schema-version).
        api_version=(2, 5, 0),
        # No group, nothing committed: the view is rebuilt from the start.
        enable_auto_commit=False,
        group_id=None,
    )
    partitions = consumer.partitions_for_topic(topic)
    if not partitions:
        sys.exit(f"topic {topic} does not exist")
    assigned = [TopicPartition(topic, p) for p in sorted(partitions)]
    consumer.assign(assigned)
    consumer.seek_to_beginning(*assigned)
    view = {}
    started = time.monotonic()
    while True:
        ends = consumer.end_offsets(assigned)
        quiet = 0
        while quiet < QUIET_POLLS or any(consumer.position(tp) < ends[tp] for tp in assigned):
            if time.monotonic() - started > READ_LIMIT_SECS:
                sys.exit(f"topic {topic}: not read to its end within {READ_LIMIT_SECS} s")
            batches = consumer.poll(timeout_ms=200)
            if not batches:
                quiet += 1
                continue
            quiet = 0
            for messages in batches.values():
                for message in messages:
                    apply(view, message)
        # The end again: reading goes on if it moved while we read.
        if all(consumer.position(tp) >= end for tp, end in consumer.end_offsets(assigned).items()):
            break
    consumer.close()
    return view


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brokers", default="127.0.0.1:9092")
    parser.add_argument("--topic", default="flight.state")
    args = parser.parse_args()
    view = read_to_end(args.brokers, args.topic)
    flights = {str(flid): value for flid, (_, value) in sorted(view.items()) if value is not None}
    json.dump(flights, sys.stdout)
    print()


if __name__ == "__main__":
    main()
