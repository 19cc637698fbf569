# A confluent_kafka (librdkafka) idempotent producer for the worker's failover tests.
# argv: bootstrap keyId secret topic partitions. Writes "<prefix>-p<partition>-<n>" to every partition
# in turn, at most 50 records outstanding per partition, until SIGINT; then flushes and exits.
# Prints one JSON line per delivery report: {"acked": [partition, offset, value]} or
# {"failed": value, "error": text}, and {"done": outstanding} after the final flush.
import signal
import sys

from confluent_kafka import Producer
from librdkafka_common import emit, sasl_plain

bootstrap, username, password, topic, partitions = sys.argv[1:6]
partitions = int(partitions)
prefix = sys.argv[6] if len(sys.argv) > 6 else "rk"

producer = Producer({
    **sasl_plain(bootstrap, username, password),
    "enable.idempotence": True,
    "acks": "all",
    "linger.ms": 5,
    # Delivery keeps retrying through a leader's death for this long (librdkafka's default is 5 min).
    "message.timeout.ms": 120000,
})
outstanding = [0] * partitions
stopping = False


def stop(signum, frame):
    global stopping
    stopping = True


signal.signal(signal.SIGINT, stop)


def report(err, message):
    outstanding[message.partition()] -= 1
    value = message.value().decode()
    if err is not None:
        emit({"failed": value, "error": str(err)})
    else:
        emit({"acked": [message.partition(), message.offset(), value]})


n = 0
while not stopping:
    for partition in range(partitions):
        if outstanding[partition] >= 50:
            continue
        outstanding[partition] += 1
        producer.produce(topic, value=f"{prefix}-p{partition}-{n}".encode(), partition=partition, on_delivery=report)
    n += 1
    producer.poll(0.01)
left = producer.flush(60)
emit({"done": left})
