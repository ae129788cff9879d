"""The job queues (settings.TASKS["default"]["QUEUES"]). The webhooks' send jobs wait on receivers outside, so
they have a queue of their own, which `parley_worker` runs on threads of their own (`--senders`): however
long a receiver takes, the jobs of the default queue (fan-outs, digests, the VACUUM that ends a redaction,
the purges) never wait behind it."""
SEND_QUEUE = "webhooks"
