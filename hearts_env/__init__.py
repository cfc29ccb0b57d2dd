"""hearts-env: the card game Hearts, every variant of RULES.md, as a reinforcement-learning environment."""

from .core import (
    NUM_ACTIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    Deal,
    HeartsError,
    IllegalActionError,
    InvalidDealError,
    Match,
    RecordError,
    Rules,
    RulesError,
)

__version__ = "0.1.0"

__all__ = [
    "NUM_ACTIONS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "Deal",
    "HeartsError",
    "IllegalActionError",
    "InvalidDealError",
    "Match",
    "RecordError",
    "Rules",
    "RulesError",
    "__version__",
]


# ---- the environments, loaded on first use: ``import hearts_env`` imports neither PettingZoo nor Gymnasium
def __getattr__(name: str) -> object:
    if name == "env":
        import importlib

        return importlib.import_module(".env", __name__)  # a callable module: hearts_env.env(**options)
    if name == "raw_env":
        from .env.aec import raw_env

        return raw_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "env", "raw_env"])


def _register_gymnasium_env() -> None:
    """Register ``hearts_env/Hearts-v0`` with Gymnasium without importing it: at once if Gymnasium
    is already imported, otherwise right after its first import (a one-shot import hook). Does
    nothing when Gymnasium is not installed."""
    import sys

    def register(gymnasium: object) -> None:
        registry = getattr(gymnasium, "registry", {})
        if "hearts_env/Hearts-v0" not in registry:
            gymnasium.register(  # type: ignore[attr-defined]
                id="hearts_env/Hearts-v0",
                entry_point="hearts_env.env.gym_env:HeartsGymEnv",
            )

    if "gymnasium" in sys.modules:
        if sys.modules["gymnasium"] is not None:  # None: blocked, as if not installed
            register(sys.modules["gymnasium"])
        return

    import contextlib
    import importlib.abc
    import importlib.machinery
    import importlib.util

    class _AfterGymnasiumImport(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: object = None, target: object = None) -> object:
            if fullname != "gymnasium":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)  # type: ignore[arg-type]
            loader = spec.loader if spec is not None else None
            if loader is None or not hasattr(loader, "exec_module"):
                return spec
            exec_module = loader.exec_module

            def exec_and_register(module: object) -> None:
                exec_module(module)
                with contextlib.suppress(Exception):  # registration must never break importing Gymnasium
                    register(module)

            loader.exec_module = exec_and_register  # type: ignore[method-assign]
            return spec

    try:
        installed = importlib.util.find_spec("gymnasium") is not None
    except (ImportError, ValueError):
        installed = False
    if installed:
        sys.meta_path.insert(0, _AfterGymnasiumImport())


_register_gymnasium_env()
