import mcp_native


def test_all_names_exist() -> None:
    for name in mcp_native.__all__:
        assert hasattr(mcp_native, name), name


def test_errors_subclass_builtins() -> None:
    import json

    assert issubclass(mcp_native.JSONDecodeError, json.JSONDecodeError)
    assert issubclass(mcp_native.ValidationError, ValueError)
    assert issubclass(mcp_native.SchemaError, ValueError)
    e = mcp_native.ValidationError(
        "'65' is not of type 'number'", ("humidity",), ("properties", "humidity", "type"), "type", "65"
    )
    assert str(e) == "'65' is not of type 'number' at /humidity"
    assert e.errors == [e]
