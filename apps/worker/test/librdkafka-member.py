# A confluent_kafka (librdkafka) consumer-group member for the worker's group tests.
# argv: bootstrap keyId secret groupId topic strategy. Prints one JSON line per event:
# {"assigned": [...]} / {"revoked": [...]} (incremental under cooperative-sticky) and
# {"record": [partition, value], "offset": offset, "key": key} (null for a missing key or value).
# Offsets are auto-committed, and once more by close() on SIGINT.
import sys

from confluent_kafka import Consumer
from librdkafka_common import emit, sasl_plain

bootstrap, username, password, group, topic, strategy = sys.argv[1:7]

consumer = Consumer({
    **sasl_plain(bootstrap, username, password),
    "group.id": group,
    "partition.assignment.strategy": strategy,
    "auto.offset.reset": "earliest",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
    "fetch.wait.max.ms": 100,
    "auto.commit.interval.ms": 200,
})
consumer.subscribe(
    [topic],
    on_assign=lambda c, ps: emit({"assigned": sorted(p.partition for p in ps)}),
    on_revoke=lambda c, ps: emit({"revoked": sorted(p.partition for p in ps)}),
)
try:
    while True:
        message = consumer.poll(0.1)
        if message is None or message.error():
            continue
        key, value = message.key(), message.value()
        emit({
            "record": [message.partition(), None if value is None else value.decode()],
            "offset": message.offset(),
            "key": None if key is None else key.decode(),
        })
except KeyboardInterrupt:
    pass
finally:
    consumer.close()
