"""§17 deliveries, one webhook at a time: each webhook has one send job at a time, so one attempt in flight at
most, and the webhooks take turns, so a webhook with many deliveries waiting delays another by one attempt
at most (webhooks.turns)."""
from tests.webhooks.conftest import jobs
from webhooks.models import Delivery


def test_a_webhook_with_many_deliveries_waiting_has_one_send_job(receiver, as_bob, alice, make_webhook, run_jobs,
                                                                  run_fan_outs):
    hook = receiver()
    make_webhook(alice, hook.url, ["inbox"])
    for number in range(3):
        as_bob.ask(f"Question {number}?")
    run_fan_outs()
    assert Delivery.objects.filter(next_attempt_at__isnull=False).count() == 3
    assert jobs("send_due").filter(status="READY").count() == 1
    run_jobs()
    assert len(hook.requests) == 3 and Delivery.objects.filter(delivered_at__isnull=True).count() == 0


def test_webhooks_take_turns_so_another_tokens_delivery_waits_for_one_attempt_at_most(
        receiver, as_alice, as_bob, alice, mallory, make_webhook, run_jobs, run_fan_outs):
    busy, other = receiver(), receiver()
    followed = as_bob.ask("Followed by another token?")
    run_fan_outs()
    make_webhook(alice, busy.url, ["inbox"])
    make_webhook(mallory, other.url, [followed])
    for number in range(3):
        as_bob.ask(f"Question {number}?")  # three deliveries to alice's inbox webhook...
    as_alice.say("answer", "Yes.", thread=followed)  # ...and then one to mallory's
    run_fan_outs()
    order = []
    while run_jobs(at_most=1):
        order += ["busy"] * (len(busy.requests) - order.count("busy"))
        order += ["other"] * (len(other.requests) - order.count("other"))
    assert order == ["busy", "other", "busy", "busy"]


def test_a_webhook_whose_send_job_failed_gets_a_new_one_from_the_periodic_resume(
        receiver, as_bob, alice, make_webhook, run_jobs, run_fan_outs):
    from webhooks.tasks import resume_sending

    hook = receiver()
    make_webhook(alice, hook.url, ["inbox"])
    as_bob.ask()
    run_fan_outs()
    jobs("send_due").update(status="FAILED")  # as a fault of ours between attempt and next job would leave it
    assert run_jobs() == 0
    assert resume_sending.call() == 1
    run_jobs()
    assert len(hook.requests) == 1 and Delivery.objects.get().delivered_at is not None
