"""Search-guided targets (``hearts_env.training.distill``): the labels a search bot gives a student's
decisions, their file format and its checks, the soft targets, and the fine-tuning that moves the
student toward the teacher."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hearts_env.bots import make_bot  # noqa: E402
from hearts_env.core.actions import NUM_ACTIONS  # noqa: E402
from hearts_env.core.cards import NUM_CARDS  # noqa: E402
from hearts_env.core.rules import Rules  # noqa: E402
from hearts_env.obs import decode_observation  # noqa: E402
from hearts_env.training import distill  # noqa: E402
from hearts_env.training.distill import LabelError, LabelSet, collect, soft_targets  # noqa: E402

TEACHER = "pimc:worlds=3"  # cheap: the tests check the plumbing, not the teacher's strength


@pytest.fixture(scope="module")
def labels() -> LabelSet:
    rules = Rules.load("standard")
    return collect(
        "ppo-standard",
        rules,
        teacher=TEACHER,
        tables=("heuristic", "self", "moon:giveup=never"),
        deals=3,
        seed=5,
        progress=False,
    )


def test_labels_cover_only_real_choices_of_student_seats(labels: LabelSet) -> None:
    n = len(labels)
    # one student seat at the heuristic table, four at the self-play table, three beside the seeker
    per_table = np.bincount(labels.table, minlength=3)
    assert 0 < per_table[0] < per_table[2] < per_table[1]
    assert (labels.mask.sum(axis=1) >= 2).all()
    assert np.array_equal(np.isfinite(labels.q), labels.mask)
    assert labels.mask[np.arange(n), labels.played.astype(int)].all()
    rules = Rules.load("standard")
    for i in range(n):  # no pass card is labelled: the teacher passes as the heuristic bot does
        view = decode_observation(labels.obs[i], rules)
        assert not (view.phase == "passing" and np.flatnonzero(labels.mask[i]).max() < NUM_CARDS)
    assert labels.meta["teacher"] == TEACHER and labels.meta["deals"] == 3
    assert 0.0 <= labels.meta["agreement"] <= 1.0
    # the points are the seat's deal points: every one in the deal's range, and some seat took some
    assert ((labels.points >= -26) & (labels.points <= 26)).all() and labels.points.any()


def test_collection_is_deterministic_under_its_seed(labels: LabelSet) -> None:
    again = collect(
        "ppo-standard",
        Rules.load("standard"),
        teacher=TEACHER,
        tables=("heuristic", "self", "moon:giveup=never"),
        deals=3,
        seed=5,
        progress=False,
    )
    for key in ("obs", "mask", "played", "points", "table"):
        assert np.array_equal(getattr(labels, key), getattr(again, key)), key
    assert np.array_equal(np.nan_to_num(labels.q, nan=-1), np.nan_to_num(again.q, nan=-1))


def test_the_teacher_values_match_a_fresh_search_of_the_same_observation(labels: LabelSet) -> None:
    """The labels are the search's own values of the seat's observation: with every world the same
    (the same seed), a fresh bot evaluating the decoded observation agrees on which actions are best."""
    rules = Rules.load("standard")
    i = int(np.argmax(labels.mask.sum(axis=1)))  # the decision with most choices
    view = decode_observation(labels.obs[i], rules)
    legal = [int(a) for a in np.flatnonzero(labels.mask[i])]
    bot = make_bot("pimc:worlds=200", rules, seed=1)
    means = bot.evaluate(view, legal)
    assert set(means) == set(legal)
    # three worlds are noisy; the labelled best must not be far worse than the best of 200 worlds
    best_label = min(legal, key=lambda a: labels.q[i, a])
    assert means[best_label] - min(means.values()) < 13


def test_label_files_round_trip_and_concatenate(labels: LabelSet, tmp_path: Path) -> None:
    path = labels.save(tmp_path / "a.npz")
    loaded = LabelSet.load(path)
    assert len(loaded) == len(labels) and loaded.tables == labels.tables
    assert np.array_equal(loaded.obs, labels.obs)
    both = LabelSet.concatenate([loaded, loaded])
    assert len(both) == 2 * len(labels)
    assert np.array_equal(both.table[: len(labels)], labels.table)


def _tamper(labels: LabelSet, tmp_path: Path, **changes: object) -> Path:
    path = tmp_path / "bad.npz"
    arrays = {k: getattr(labels, k) for k in ("obs", "mask", "q", "played", "points", "penalty_total", "table")}
    header = {"format": distill.LABEL_FORMAT, "tables": list(labels.tables), **labels.meta}
    header.update(changes.pop("header", {}))  # type: ignore[arg-type]
    arrays.update(changes)  # type: ignore[arg-type]
    np.savez(path, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), **arrays)
    return path


def test_bad_label_files_are_refused_with_the_reason(labels: LabelSet, tmp_path: Path) -> None:
    truncated = tmp_path / "cut.npz"
    truncated.write_bytes(labels.save(tmp_path / "ok.npz").read_bytes()[:200])
    with pytest.raises(LabelError, match="not a label file"):
        LabelSet.load(truncated)
    with pytest.raises(LabelError, match="format"):
        LabelSet.load(_tamper(labels, tmp_path, header={"format": "something/else"}))
    with pytest.raises(LabelError, match="encoding"):
        LabelSet.load(_tamper(labels, tmp_path, header={"encoding_version": 0}))
    q = labels.q.copy()
    q[0, np.flatnonzero(labels.mask[0])[0]] = np.nan
    with pytest.raises(LabelError, match="finite exactly on the legal"):
        LabelSet.load(_tamper(labels, tmp_path, q=q))
    with pytest.raises(LabelError, match=r"played is int64"):
        LabelSet.load(_tamper(labels, tmp_path, played=labels.played.astype(np.int64)))
    objects = tmp_path / "objects.npz"
    np.savez(objects, obs=np.array([{"a": 1}], dtype=object))
    with pytest.raises(LabelError, match="not a label file"):  # object arrays would need unpickling: refused
        LabelSet.load(objects)


def test_soft_targets_put_mass_on_the_teachers_best_and_none_on_illegal_actions() -> None:
    q = torch.zeros(2, NUM_ACTIONS)
    mask = torch.zeros(2, NUM_ACTIONS, dtype=torch.bool)
    mask[0, [3, 7, 9]] = True
    q[0, [3, 7, 9]] = torch.tensor([5.0, 2.0, 2.5])
    mask[1, [0, 1]] = True
    q[1, [0, 1]] = torch.tensor([1.0, 1.0])
    t = soft_targets(q, mask, temperature=0.5)
    assert torch.allclose(t.sum(1), torch.ones(2))
    assert float(t[~mask].abs().max()) == 0.0
    assert int(t[0].argmax()) == 7 and float(t[0, 9]) == pytest.approx(float(t[0, 7]) * np.exp(-1.0), rel=1e-5)
    assert float(t[1, 0]) == pytest.approx(0.5)
    assert float(soft_targets(q, mask, temperature=1e-3)[0, 7]) == pytest.approx(1.0)


def test_distillation_moves_the_student_toward_the_teacher(labels: LabelSet) -> None:
    torch.manual_seed(0)
    network = distill.student_network("ppo-standard", Rules.load("standard"))
    settings = distill.DistillSettings(epochs=40, minibatch_size=64, learning_rate=3e-3, kl_coef=0.0, holdout=0.0)
    distill.distil(network, labels, settings)
    # on the labels it learned, the greedy choice is now the teacher's best far more often
    obs = network.select_inputs(torch.from_numpy(labels.obs))
    mask = torch.from_numpy(labels.mask)
    q = torch.from_numpy(np.nan_to_num(labels.q, nan=0.0))
    with torch.no_grad():
        choice = distill.greedy_actions(network(obs)[0], mask)
    lost = distill.regret(choice, q, mask)
    before = labels.meta["agreement"]
    assert float((lost <= 1e-6).float().mean()) > max(0.9, before)


def test_the_command_line_labels_trains_and_exports_a_playable_model(
    labels: LabelSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shard = labels.save(tmp_path / "labels" / "a.npz")
    code = distill.main(["train", "--labels", str(shard), str(shard), "--export-name", "distilled",
                         "--student", "ppo-standard", "--settings.epochs", "1"])  # fmt: skip
    assert code == 0
    card = json.loads((tmp_path / "models" / "distilled" / "model.json").read_text())
    info = card["training"]
    assert info["label_decisions"] == 2 * len(labels) and info["teacher"] == TEACHER
    assert "before_regret" in info["figures"] and "regret" in info["figures"]
    bot = make_bot(str(tmp_path / "models" / "distilled"), "standard", seed=0)
    assert bot.name == "distilled"
    (tmp_path / "broken.npz").write_bytes(b"not an archive")
    assert distill.main(["train", "--labels", "broken.npz", "--export-name", "x"]) == 2


def test_a_guard_teacher_labels_only_where_its_guard_fires() -> None:
    rules = Rules.load("standard")
    spec = "guard:base=heuristic,worlds=2"
    labels = collect(
        "ppo-standard", rules, teacher=spec, tables=("moon:giveup=never",), deals=3, seed=2, progress=False
    )
    assert len(labels) > 0 and labels.meta["teacher"] == spec
    guard = make_bot(spec, rules)
    for i in range(len(labels)):
        assert guard.holder(decode_observation(labels.obs[i], rules)) is not None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="pimc or guard"):
        collect("ppo-standard", rules, teacher="heuristic", deals=1, progress=False)


def test_min_gap_keeps_the_students_policy_where_the_teacher_is_not_clearly_better(labels: LabelSet) -> None:
    """With a gap no label reaches, every target is the student's own policy: it does not move."""
    rules = Rules.load("standard")
    network = distill.student_network("ppo-standard", rules)
    obs = network.select_inputs(torch.from_numpy(labels.obs))
    mask = torch.from_numpy(labels.mask)
    with torch.no_grad():
        before = distill.greedy_actions(network(obs)[0], mask)
    settings = distill.DistillSettings(epochs=3, minibatch_size=64, learning_rate=1e-3, min_gap=1e6, holdout=0.0)
    figures = distill.distil(network, labels, settings)
    assert figures["taught_share"] == 0.0
    with torch.no_grad():
        after = distill.greedy_actions(network(obs)[0], mask)
    assert float((after == before).float().mean()) > 0.97


def test_prior_search_targets_rank_only_the_students_plausible_moves() -> None:
    """The target of ``pimc:prior=<student>``: the student's own policy where it is confident, else the
    teacher's best among the moves the student gives at least ``floor`` (and its favourite), never a move
    the student rules out, however good the teacher's noisy value makes it look."""
    mask = torch.zeros(3, NUM_ACTIONS, dtype=torch.bool)
    mask[:, [3, 7, 9]] = True
    logits = torch.full((3, NUM_ACTIONS), -1e9)
    logits[0, [3, 7, 9]] = torch.log(torch.tensor([0.6, 0.395, 0.005]))  # unsure; 9 below the floor
    logits[1, [3, 7, 9]] = torch.log(torch.tensor([0.995, 0.004, 0.001]))  # confident in 3
    logits[2, [3, 7, 9]] = torch.log(torch.tensor([0.98, 0.01, 0.01]))  # unsure, the others at the floor
    logp = distill.masked_log_probs(logits, mask)
    q = torch.zeros(3, NUM_ACTIONS)
    q[:, [3, 7, 9]] = torch.tensor([4.0, 3.0, 0.0])  # the teacher prefers 9, then 7
    settings = distill.DistillSettings(floor=0.01, confident=0.99, temperature=1e-3)
    target, searched = distill.prior_search_targets(logits, logp, q, mask, settings)
    assert searched.tolist() == [True, False, True]
    assert torch.allclose(target.sum(1), torch.ones(3))
    assert int(target[0].argmax()) == 7 and float(target[0, 9]) == 0.0  # 9 is ruled out by the student
    assert torch.allclose(target[1], logp[1].exp() * mask[1])  # confident: its own policy
    assert int(target[2].argmax()) == 9  # 9 reaches the floor: the teacher's best is taken
    assert float(target[~mask].abs().max()) == 0.0


def test_distillation_with_the_prior_filter_reports_the_searched_share(labels: LabelSet) -> None:
    network = distill.student_network("ppo-standard", Rules.load("standard"))
    settings = distill.DistillSettings(epochs=1, minibatch_size=64, floor=0.01, confident=0.99, holdout=0.2)
    figures = distill.distil(network, labels, settings)
    assert 0.0 < figures["searched_share"] < 1.0 and "regret" in figures
