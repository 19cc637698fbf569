# A confluent_kafka (librdkafka) consumer of one assigned partition from offset 0, for the leader
# epoch tests. argv: bootstrap keyId secret topic count. Prints one JSON line per event:
# {"librdkafka": "x.y.z"} first, then {"record": [offset, value]}, {"error": "..."}; exits once
# `count` records were read.
# auto.offset.reset=error: a position librdkafka's offset validation judged truncated surfaces as
# an error instead of a silent reset. Its protocol debug log (stderr) names the requests it sent.
import sys

from confluent_kafka import Consumer, TopicPartition, libversion
from librdkafka_common import emit, read_records, sasl_plain

bootstrap, username, password, topic, count = sys.argv[1:6]

consumer = Consumer({
    **sasl_plain(bootstrap, username, password),
    "group.id": "epoch-reader",
    "enable.auto.commit": False,
    "auto.offset.reset": "error",
    "fetch.wait.max.ms": 100,
    "topic.metadata.refresh.interval.ms": 500,
    "debug": "protocol",
})
emit({"librdkafka": libversion()[0]})
consumer.assign([TopicPartition(topic, 0, 0)])
read_records(consumer, int(count), lambda m: [m.offset(), m.value().decode()])
