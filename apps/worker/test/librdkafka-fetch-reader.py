# A confluent_kafka (librdkafka) consumer for the Fetch error tests. argv: bootstrap keyId secret
# group topic spec count, where spec is "assign:<partition>@<offset>,..." (assigned from those
# offsets) or "subscribe" (the group's committed offsets, auto.offset.reset=earliest below or
# above the log). Prints one JSON line per event: {"record": [partition, offset, value]} or
# {"error": "..."}; exits once `count` records were read. Its protocol debug log goes to stderr.
import sys

from confluent_kafka import Consumer, TopicPartition
from librdkafka_common import read_records, sasl_plain

bootstrap, username, password, group, topic, spec, count = sys.argv[1:8]

consumer = Consumer({
    **sasl_plain(bootstrap, username, password),
    "group.id": group,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "fetch.wait.max.ms": 100,
    "debug": "protocol,fetch",
})
if spec == "subscribe":
    consumer.subscribe([topic])
else:
    starts = [part.split("@") for part in spec.removeprefix("assign:").split(",")]
    consumer.assign([TopicPartition(topic, int(p), int(o)) for p, o in starts])
read_records(consumer, int(count), lambda m: [m.partition(), m.offset(), m.value().decode()])
