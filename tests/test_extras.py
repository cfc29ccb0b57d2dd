"""A missing optional extra is named with the command that installs it."""

from __future__ import annotations

import pytest

from hearts_env.core.extras import MissingExtraError, import_extra


def test_a_missing_extra_names_the_extra_to_install() -> None:
    with pytest.raises(
        MissingExtraError,
        match=r"RLlib training needs no_such_pkg_xyz, from the rllib extra: "
        r"pip install 'hearts-env\[rllib\]'",
    ) as info:
        import_extra("no_such_pkg_xyz.sub", "rllib", "RLlib training")
    assert isinstance(info.value, ModuleNotFoundError)
    assert info.value.name == "no_such_pkg_xyz"


def test_an_installed_module_is_returned() -> None:
    assert import_extra("json", "env", "anything").dumps([1]) == "[1]"


def test_an_import_error_inside_an_installed_package_is_not_hidden(tmp_path, monkeypatch) -> None:
    (tmp_path / "brokenpkg_xyz").mkdir()
    (tmp_path / "brokenpkg_xyz" / "__init__.py").write_text("import another_missing_pkg_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        import_extra("brokenpkg_xyz", "recipes", "x")
    assert not isinstance(info.value, MissingExtraError)
    assert info.value.name == "another_missing_pkg_xyz"
