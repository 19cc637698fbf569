# A confluent_kafka (librdkafka) consumer reading partition 0 of a topic from offset 0 under an
# isolation level. argv: bootstrap keyId secret topic isolation count, isolation being
# read_committed or read_uncommitted. Prints one JSON line per record: {"record": [offset, value]}
# (or {"error": ...}); exits once `count` records were read.
import sys

from confluent_kafka import Consumer, TopicPartition
from librdkafka_common import read_records, sasl_plain

bootstrap, username, password, topic, isolation, count = sys.argv[1:7]

consumer = Consumer({
    **sasl_plain(bootstrap, username, password),
    "group.id": f"isolation-reader-{isolation}",
    "enable.auto.commit": False,
    "isolation.level": isolation,
    "fetch.wait.max.ms": 100,
})
consumer.assign([TopicPartition(topic, 0, 0)])
read_records(consumer, int(count), lambda m: [m.offset(), m.value().decode()])
