"""`opgen import` on documents the tests write (tests/aclnn_doc_writers.py) in both formats: what a Markdown
document says reaches the starter spec; broken documents get `file:line` errors and write nothing; the
starter's questions keep the spec loader from loading it; random parameter lists round-trip.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from aclnn_doc_helpers import catalogue
from aclnn_doc_writers import Doc, Param, markdown, text
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import profile_settings

from codegen.aclnn_doc import MAX_DOC_BYTES, DocError, import_doc
from codegen.aclnn_doc.run import parse_doc
from codegen.cli import main
from codegen.registry import families
from codegen.spec import SpecErrors, load_catalogue, load_op_spec
from codegen.spec.naming import name_problem

FAMILIES = tuple(f.name for f in families())
SEEDS = Path(__file__).parent / "data" / "aclnn_docs"


def _import(tmp_path: Path, doc: str, suffix: str = ".md", **kw: object):  # type: ignore[no-untyped-def]
    path = tmp_path / f"doc{suffix}"
    path.write_text(doc)
    return import_doc(path, catalogue(), FAMILIES, tmp_path, out=tmp_path / "spec.yaml", **kw)  # type: ignore[arg-type]


def _scaled() -> Doc:
    return Doc(
        op="ScaledDiffBackward",
        params=[
            Param("gradOutput", "const aclTensor *", dtypes=("FLOAT", "FLOAT16", "BF16"), formats=("ND",), rank=(0, 8)),
            Param(
                "self", "const aclTensor *", dtypes=("FLOAT", "FLOAT16", "BF16"), formats=("ND", "NCHW"), rank=(1, 8)
            ),
            Param("weightOptional", "const aclTensor *", dtypes=("FLOAT", "FLOAT16", "BF16"), rank=(0, 8)),
            Param("alpha", "const aclScalar *", dtypes=("FLOAT", "INT32")),
            Param("reduction", "int64_t", values=((0, "none"), (1, "mean"), (2, "sum"))),
            Param("epsilon", "double", usage="缺省值为1e-6。"),
            Param("mode", "char *", usage="支持'fast'、'exact'。"),
            Param(
                "out",
                "const aclTensor *",
                output=True,
                dtypes=("FLOAT", "FLOAT16", "BF16"),
                formats=("ND",),
                rank=(0, 8),
                usage="shape为gradOutput、self的broadcast结果。",
            ),
        ],
        errors=(
            ("ACLNN_ERR_PARAM_NULLPTR", 161001, "传入的张量是空指针。"),
            ("ACLNN_ERR_PARAM_INVALID", 161002, "数据类型不在支持范围内。"),
            ("ACLNN_ERR_INNER_TILING_ERROR", 561002, "张量的shape不满足要求。"),
        ),
        constraints=[
            "- <term>Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>、"
            "<term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>：",
            "  - 设定self最后一维为lastDim，其大小须满足：",
            "    $$",
            "    lastDim \\le \\frac{ubBytes}{64} - 2",
            "    $$",
            "  - 当self的元素很多时，性能会下降。",
        ],
    )


def test_a_markdown_document_reaches_the_spec(tmp_path: Path) -> None:
    result = _import(tmp_path, markdown(_scaled()), family="elementwise")
    spec = yaml.safe_load(result.path.read_text())
    assert spec["op"] == "ScaledDiffBackward" and spec["family"] == "elementwise"
    assert spec["products"] == ["Ascend910B", "Ascend910_93"]  # Ascend310P is listed as not supported
    assert spec["deterministic"] is True
    assert [t["name"] for t in spec["inputs"]] == ["gradOutput", "self", "weightOptional"]
    assert spec["inputs"][0] == {
        "name": "gradOutput",
        "dtypes": ["FLOAT", "FLOAT16", "BF16"],
        "rank": [0, 8],
        "formats": ["ND"],
        "description": "参数gradOutput的说明。",
    }
    assert spec["inputs"][1]["formats"] == ["ND", "NCHW"] and spec["inputs"][1]["rank"] == [1, 8]
    assert spec["inputs"][2]["optional"] is True
    assert [(a["name"], a["type"]) for a in spec["attrs"]] == [
        ("alpha", "scalar"),
        ("reduction", "int64"),
        ("epsilon", "double"),
        ("mode", "string"),
    ]
    assert spec["attrs"][0]["dtypes"] == ["FLOAT", "INT32"]
    assert spec["attrs"][1]["values"] == {0: "none", 1: "mean", 2: "sum"}
    assert spec["attrs"][2]["default"] == 1e-6
    assert spec["attrs"][3]["values"] == ["fast", "exact"]
    out = spec["outputs"][0]
    assert out["shape"] == "broadcast(gradOutput, self)" and out["const"] is True
    assert "signature" not in spec  # inputs, attrs, outputs: the default order
    (c,) = spec["constraints"]
    assert c["products"] == ["Ascend910B", "Ascend910_93"]
    assert c["let"] == {"lastDim": "dim(self, -1)"}
    assert c["require"] == "lastDim <= ubBytes / 64 - 2"
    asked = {line: q.text for line, q in result.questions}
    lines = result.path.read_text().split("\n")
    keys = sorted(lines[n - 1].split(":")[0].strip() for n in asked)
    # the device names, the optional input's formats (its row has none) and default, the math, and which check
    # returns 561002
    assert keys == ["category", "compute", "default", "example", "formats", "kernel", "op_type", "shape_status"]
    for n in asked:
        assert re.match(r'^\s*[\w-]+: "QUESTION\(doc line \d+\)', lines[n - 1])
        assert lines[n - 2].lstrip().startswith("# QUESTION(doc line")
    status_line = next(n for n in asked if lines[n - 1].startswith("shape_status"))
    assert "561002" in asked[status_line] and "ACLNN_ERR_INNER_TILING_ERROR" in asked[status_line]
    assert "#   doc line 177: 当self的元素很多时，性能会下降。" in lines  # a limit that is no status rule


def test_a_support_table_and_rowspan_error_rows(tmp_path: Path) -> None:
    doc = _scaled()
    doc.support_table = True
    doc.products = ("Ascend910", "Ascend950")
    doc.errors = (
        ("ACLNN_ERR_PARAM_NULLPTR", 161001, "空指针。"),
        ("ACLNN_ERR_PARAM_INVALID", 161002, "数据类型不支持。"),
        ("ACLNN_ERR_PARAM_INVALID", 161002, "shape不能广播。"),
        ("ACLNN_ERR_INNER_TILING_ERROR", 561002, "shape超出范围。"),
    )
    doc.constraints = []
    result = _import(tmp_path, markdown(doc))
    assert [s[1:] for s in result.doc.statuses] == [
        (161001, "ACLNN_ERR_PARAM_NULLPTR", "空指针。"),
        (161002, "ACLNN_ERR_PARAM_INVALID", "数据类型不支持。"),
        (161002, "ACLNN_ERR_PARAM_INVALID", "shape不能广播。"),
        (561002, "ACLNN_ERR_INNER_TILING_ERROR", "shape超出范围。"),
    ]
    spec = yaml.safe_load(result.path.read_text())
    assert spec["products"] == ["Ascend910", "Ascend950"]
    # Ascend910 has no BF16: a spec's per-product derivation drops it there, as the document's list does
    assert spec["inputs"][0]["dtypes"] == ["FLOAT", "FLOAT16", "BF16"]


def test_a_bare_name_cell_takes_the_prototype_type_and_dtypes_in_words_are_a_question(tmp_path: Path) -> None:
    md = markdown(_scaled())
    row = md.index("self（aclTensor*）")
    cells = md[row:].split("</tr>")[0]
    words = cells.replace("FLOAT32、FLOAT16、BFLOAT16", "与gradOutput保持一致")
    md = md[:row] + words.replace("self（aclTensor*）", "self") + md[row + len(cells) :]
    spec = yaml.safe_load(_import(tmp_path, md).path.read_text())
    assert spec["inputs"][1]["name"] == "self" and spec["inputs"][1]["rank"] == [1, 8]
    assert spec["inputs"][1]["dtypes"].endswith("the data types of 'self' are given in words: '与gradOutput保持一致'")
    assert spec["attrs"][2] == {
        "name": "epsilon",
        "type": "double",
        "default": 1e-6,
        "description": "参数epsilon的说明。",
    }


def test_the_source_link_proposes_the_kernel_and_op_type(tmp_path: Path) -> None:
    md = markdown(_scaled()).replace(
        "## 产品支持情况",
        "[源码](https://gitcode.com/cann/ops-nn/tree/master/loss/scaled_diff_grad)\n\n## 产品支持情况",
        1,
    )
    spec = yaml.safe_load(_import(tmp_path, md).path.read_text())
    assert spec["kernel"].startswith("QUESTION(doc line 3): the kernel file stem")
    assert spec["kernel"].endswith("; proposed: scaled_diff_grad")
    assert spec["op_type"].endswith("(the source folder is scaled_diff_grad); proposed: ScaledDiffGrad")
    without = yaml.safe_load(_import(tmp_path, markdown(_scaled()), force=True).path.read_text())
    assert without["kernel"].endswith("; proposed: scaled_diff_backward")


def test_a_product_lacking_a_listed_dtype_is_a_question(tmp_path: Path) -> None:
    doc = _scaled()
    md = markdown(doc).replace(
        "- **返回值**",
        "  - <term>Atlas A3 训练系列产品/Atlas A3 推理系列产品</term>："
        "参数`self`的数据类型不支持BFLOAT16。\n\n- **返回值**",
    )
    result = _import(tmp_path, md)
    spec = yaml.safe_load(result.path.read_text())
    assert spec["inputs"][0]["dtypes"] == ["FLOAT", "FLOAT16", "BF16"]
    assert spec["inputs"][1]["dtypes"].startswith("QUESTION(doc line")
    assert "on Ascend910_93 the document lists [FLOAT, FLOAT16] for 'self'" in spec["inputs"][1]["dtypes"]


def test_a_damaged_parameter_name_is_a_question(tmp_path: Path) -> None:
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    damaged = seed.replace("  • self (aclTensor*, compute input)", "  • [object Object] (aclTensor*, compute input)")
    result = _import(tmp_path, damaged, ".txt", family="elementwise")
    spec = yaml.safe_load(result.path.read_text())
    name = spec["inputs"][1]["name"]
    assert name == "QUESTION(doc line 21): the parameter's name is damaged in the document (aclTensor*)"
    assert spec["inputs"][1]["dtypes"] == ["FLOAT16", "FLOAT", "BF16"]  # the rest of the entry is still read
    # out's shape names the damaged input too: no broadcast of the other two is proposed as the answer
    assert spec["outputs"][0]["shape"].startswith("QUESTION(doc line 28): the shape rule of 'out'")
    undamaged = yaml.safe_load(_import(tmp_path, seed, ".txt", family="elementwise", force=True).path.read_text())
    assert undamaged["outputs"][0]["shape"] == "broadcast(gradOutput, self, target)"


def test_cli_prints_questions_and_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "aclnnScaledDiffBackward.md"
    doc.write_text(markdown(_scaled()))
    out = tmp_path / "s.yaml"
    assert main(["import", str(doc), "--out", str(out), "--family", "elementwise"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == f"wrote {out}"
    questions = [ln for ln in printed if ln.startswith(f"{out}:")]
    assert len(questions) == 8 and printed[-1] == "8 question(s) to answer in the spec before it loads"
    lines = out.read_text().split("\n")
    for q in questions:
        line = int(q.split(":")[1])
        assert q.split(": ", 1)[1] in lines[line - 1]  # printed at the line of its placeholder
    before = out.read_text()
    out.write_text("keep me\n")
    assert main(["import", str(doc), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"error: --out {out}: the spec file exists; nothing was written (--force overwrites it)"
    ]
    assert out.read_text() == "keep me\n"
    assert main(["import", str(doc), "--out", str(out), "--family", "elementwise", "--force"]) == 0
    assert out.read_text() == before
    assert main(["import", str(doc), "--out", str(tmp_path / "t.yaml"), "--family", "elementwize"]) == 2
    assert capsys.readouterr().err == (
        "error: --family: no family 'elementwize'; the families are: elementwise, foreach, gather_scatter, "
        "index_accumulate, row_reduce\n"
    )
    assert not (tmp_path / "t.yaml").exists()


def test_the_loader_refuses_an_unanswered_starter(tmp_path: Path) -> None:
    result = import_doc(
        SEEDS / "aclnnSoftMarginLossBackward.txt", catalogue(), FAMILIES, tmp_path, family="elementwise"
    )
    assert result.path == tmp_path / "soft_margin_loss_backward.yaml"
    with pytest.raises(SpecErrors) as info:
        load_op_spec(result.path, catalogue())
    errors = info.value.errors
    # one error per question, at its placeholder's line, and nothing else (no follow-on type errors)
    assert [e.loc.line for e in errors] == [line for line, _ in result.questions]
    assert all("unanswered question of `opgen import`: QUESTION(doc line" in e.message for e in errors)
    assert [e.field for e in errors][:4] == ["op_type", "kernel", "category", "products"]


def test_a_document_term_naming_two_products_is_a_catalogue_error(tmp_path: Path) -> None:
    path = tmp_path / "products.yaml"
    text_ = (Path(catalogue().path)).read_text()
    path.write_text(text_.replace('["Ascend 950PR&950DT系列产品"]', '["Atlas A2系列产品"]'))
    with pytest.raises(SpecErrors) as info:
        load_catalogue(path)
    (e,) = info.value.errors
    assert e.field.endswith("doc_aliases")
    assert "document term 'Atlas A2系列产品' of Ascend950 also names Ascend910B" in e.message


def _broken() -> list[tuple[str, str | bytes, str, int | None, str]]:
    """(id, document, suffix, error line or None for any, message fragment)."""
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    md = markdown(_scaled())
    md_lines = md.split("\n")
    row = next(i for i, ln in enumerate(md_lines) if "self（aclTensor*）" in ln)
    support = next(i for i, ln in enumerate(md_lines) if "Atlas A2 训练系列产品" in ln)
    return [
        ("text-no-parameters", seed.replace("• Parameters:", "• Arguments:", 1), ".txt", 9, "no parameter list"),
        (
            "text-unknown-type",
            seed.replace("reduction (int64_t, compute input)", "reduction (aclFoo*, compute input)"),
            ".txt",
            27,
            "unknown parameter type 'aclFoo*' of 'reduction'",
        ),
        (
            "text-unsupported-type",
            seed.replace("reduction (int64_t, compute input)", "reduction (aclFloatArray*, compute input)"),
            ".txt",
            27,
            "parameter type 'aclFloatArray*' of 'reduction' is not supported",
        ),
        (
            "text-unknown-product",
            seed.replace("Atlas training series products", "Atlas hyper series products", 1),
            ".txt",
            19,
            "unknown product term 'Atlas hyper series products'",
        ),
        ("text-unknown-dtype", seed.replace("FLOAT16 or FLOAT.", "FLOAT16 or FLOAT48.", 1), ".txt", 19, "FLOAT48"),
        ("text-no-name", seed.replace("aclnnSoftMarginLossBackward", "theOp"), ".txt", 1, "no aclnn API name"),
        (
            "md-no-table",
            "\n".join([*md_lines[: support + 1], f"## aclnn{_scaled().op}GetWorkspaceSize", "", "nothing here"]),
            ".md",
            None,
            "no parameter table",
        ),
        ("md-truncated-table", "\n".join(md_lines[: row + 3]), ".md", None, "not closed"),
        (
            "md-short-row",
            "\n".join(md_lines[: row + 2] + md_lines[row + 3 :]),
            ".md",
            None,
            "cells but the header 8 (truncated table?)",
        ),
        (
            "md-unknown-type",
            md.replace("alpha（aclScalar*）", "alpha（aclBar*）"),
            ".md",
            None,
            "unknown parameter type",
        ),
        (
            "md-unknown-product",
            md.replace("Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>：支持", "Atlas Z9 系列产品</term>：支持"),
            ".md",
            support + 1,
            "unknown product term 'Atlas Z9 系列产品'",
        ),
        (
            "md-prototype-disagrees",
            md.replace("    const aclTensor * self,\n", ""),
            ".md",
            None,
            "the prototype's parameters",
        ),
        (
            "md-bad-error-row",
            md.replace("<td>161002</td>", "<td>161003</td>"),
            ".md",
            None,
            "error code '161003' and name 'ACLNN_ERR_PARAM_INVALID'",
        ),
        ("empty", "", ".md", 1, "the document is empty"),
        ("blank", "\n  \n", ".md", 1, "the document is empty"),
        ("binary", b"# aclnnX\n\x7fELF\x02\x01\x00\x00binary", ".md", 2, "binary file (a NUL byte)"),
        ("latin1", b"# aclnnX\n\nbad \xe9 byte\n", ".md", 3, "not UTF-8 text"),
        ("huge", "x" * (MAX_DOC_BYTES + 1), ".md", 1, f"more than the {MAX_DOC_BYTES:,} bytes allowed"),
    ]


@pytest.mark.parametrize(
    ("doc", "suffix", "line", "fragment"), [b[1:] for b in _broken()], ids=[b[0] for b in _broken()]
)
def test_a_broken_document_is_an_error_at_its_line_and_writes_nothing(
    tmp_path: Path, doc: str | bytes, suffix: str, line: int | None, fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"doc{suffix}"
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    else:
        path.write_text(doc)
    out = tmp_path / "spec.yaml"
    with pytest.raises(DocError) as info:
        import_doc(path, catalogue(), FAMILIES, tmp_path, out=out)
    assert info.value.file == str(path)
    if line is not None:
        assert info.value.line == line, str(info.value)
    assert fragment in info.value.message
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [path.name]
    out.write_text("old\n")  # an existing spec is left alone, even with --force
    assert main(["import", str(path), "--out", str(out), "--force"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [str(info.value), "1 document error; nothing was written"]
    assert out.read_text() == "old\n"


_NAMES = st.from_regex(r"[a-z][a-zA-Z0-9]{0,10}", fullmatch=True).filter(
    lambda s: s not in {"workspaceSize", "executor", "out"} and name_problem(s) is None
)
_TENSOR_DTYPES = ("FLOAT", "FLOAT16", "INT32", "INT64", "INT8", "UINT8", "BOOL", "DOUBLE")


@st.composite
def _docs(draw: st.DrawFn) -> Doc:
    names = draw(st.lists(_NAMES, min_size=1, max_size=7, unique_by=str.lower))
    params = []
    for name in names:
        kind = draw(st.sampled_from(["tensor", "tensor", "int64_t", "uint64_t", "bool", "double", "float", "scalar"]))
        if kind == "tensor":
            lo = draw(st.integers(0, 8))
            params.append(
                Param(
                    name,
                    "const aclTensor *",
                    dtypes=tuple(draw(st.lists(st.sampled_from(_TENSOR_DTYPES), min_size=1, max_size=4, unique=True))),
                    formats=tuple(draw(st.lists(st.sampled_from(["ND", "NCHW", "NHWC"]), min_size=1, unique=True))),
                    rank=(lo, draw(st.integers(lo, 8))),
                )
            )
        elif kind == "scalar":
            dtypes = draw(st.lists(st.sampled_from(["FLOAT", "FLOAT16", "INT32", "BOOL"]), max_size=3, unique=True))
            params.append(Param(name, "const aclScalar *", dtypes=tuple(dtypes)))
        elif kind == "int64_t" and draw(st.booleans()):
            n = draw(st.integers(2, 4))
            params.append(Param(name, kind, values=tuple((i, f"v{i}") for i in range(n))))
        else:
            params.append(Param(name, kind))
    outs = draw(st.integers(1, 2))
    for i in range(outs):
        params.append(
            Param(f"out{i}", "aclTensor *", output=True, dtypes=("FLOAT", "FLOAT16"), formats=("ND",), rank=(1, 8))
        )
    products = tuple(
        draw(st.lists(st.sampled_from(["Ascend910B", "Ascend910_93", "Ascend950"]), min_size=1, unique=True))
    )
    return Doc(op="RandomOpBackward", params=params, products=products)


@profile_settings()
@given(doc=_docs(), fmt=st.sampled_from(["md", "txt"]))
def test_random_parameter_lists_round_trip(tmp_path_factory: pytest.TempPathFactory, doc: Doc, fmt: str) -> None:
    tmp = tmp_path_factory.mktemp("rt")
    result = _import(tmp, markdown(doc) if fmt == "md" else text(doc), f".{fmt}")
    spec = yaml.safe_load(result.path.read_text())
    tensors = {t["name"]: t for t in (*spec["inputs"], *spec["outputs"])}
    attrs = {a["name"]: a for a in spec.get("attrs", [])}
    c_kind = {"int64_t": "int64", "uint64_t": "uint64", "bool": "bool", "double": "double", "float": "float"}
    for p in doc.params:
        if "Tensor" in p.ctype:
            t = tensors[p.name]
            assert (t["dtypes"], t["rank"], t["formats"]) == (list(p.dtypes), list(p.rank or ()), list(p.formats))
        else:
            a = attrs[p.name]
            assert a["type"] == ("scalar" if "Scalar" in p.ctype else c_kind[p.ctype])
            assert a.get("values") == (dict(p.values) if p.values else None)
            assert set(a.get("dtypes", [])) == set(p.dtypes)
    order = [p.name for p in doc.params]
    written = [t["name"] for t in spec["inputs"]] + list(attrs) + [t["name"] for t in spec["outputs"]]
    assert spec.get("signature", written) == order
    if fmt == "md":
        assert spec["products"] == [n for n in ("Ascend910B", "Ascend910_93", "Ascend950") if n in doc.products]
        assert all(t.get("const") is None for t in spec["outputs"])
    else:
        assert spec["products"].startswith("QUESTION(doc line")


@pytest.mark.parametrize("kind", ["fifo", "directory", "device"])
def test_a_document_that_is_no_regular_file_is_refused_without_reading(tmp_path: Path, kind: str) -> None:
    """A FIFO with no writer, a directory and /dev/zero are refused from what they are: no hang, no read."""
    if kind == "fifo":
        path = tmp_path / "doc.md"
        os.mkfifo(path)
        expected = "FIFO"
    elif kind == "directory":
        path = tmp_path / "doc.md"
        path.mkdir()
        expected = "directory"
    else:
        path = Path("/dev/zero")
        expected = "character device"
    out = tmp_path / "spec.yaml"
    with pytest.raises(DocError) as info:
        import_doc(path, catalogue(), FAMILIES, tmp_path, out=out)
    assert info.value.line == 1 and expected in info.value.message
    assert not out.exists()


_SEED_VALUES = "0 ('none') | 1 ('mean') | 2 ('sum')"


@pytest.mark.parametrize(
    ("values", "item"),
    [
        ("0 ('none') | 1 ('mean x') | 2 ('sum')", "1 ('mean x')"),  # a name with a space
        ("0 ('none') | 1 ('mean') | 2 ('sum') | 3", "3"),  # a trailing bare value
        ("0 ('none') | 1 ('me\"an: [x]\\n#') | 2 ('sum')", "1 ('me\"an: [x]\\n#')"),  # hostile
        ("0 ('none') | 1 ('me\"an: [x]\n#') | 2 ('sum')", "1 ('me\"an: [x]"),  # a line break inside
        ("0 ('no|ne') | 1 ('mean')", "0 ('no"),
        ("0(none)|1()|2(sum)", "1()"),
    ],
    ids=["space", "bare", "hostile", "line-break", "pipe-in-name", "empty-name"],
)
def test_a_value_list_with_an_unreadable_item_is_one_question(tmp_path: Path, values: str, item: str) -> None:
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    assert _SEED_VALUES in seed
    result = _import(tmp_path, seed.replace(_SEED_VALUES, values), ".txt", family="elementwise")
    spec = yaml.safe_load(result.path.read_text())  # still one YAML document: nothing leaks out of a line
    (reduction,) = spec["attrs"]
    assert reduction["name"] == "reduction" and reduction["type"] == "int64"
    assert reduction["values"].startswith(
        "QUESTION(doc line 27): the value list of 'reduction' cannot be read exactly: item "
        + json.dumps(item, ensure_ascii=False)
    )
    with pytest.raises(SpecErrors) as info:  # the loader refuses it as a question, and nothing else
        load_op_spec(result.path, catalogue())
    assert [e.loc.line for e in info.value.errors] == [line for line, _ in result.questions]
    assert "attrs[0].values" in [e.field for e in info.value.errors]


def test_value_names_are_quoted_yaml_and_a_markdown_list_reads_exactly(tmp_path: Path) -> None:
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    result = _import(tmp_path, seed.replace(_SEED_VALUES, "0 ('null') | 1 ('yes') | -2 (\"no\")"), ".txt")
    assert '    values: {0: "null", 1: "yes", -2: "no"}' in result.path.read_text().split("\n")
    assert yaml.safe_load(result.path.read_text())["attrs"][0]["values"] == {0: "null", 1: "yes", -2: "no"}
    doc = _scaled()
    doc.params[4].values = ((0, "none"), (1, "mean"), (2, "sum"), (3, "x y"))
    md = yaml.safe_load(_import(tmp_path, markdown(doc), force=True).path.read_text())
    assert md["attrs"][1]["values"].endswith(
        "item \"3(x y)\" (value name 'x y' must be a C identifier and not a "
        "C++ keyword); write {integer: name, ...} (names: C identifiers)"
    )


@pytest.mark.parametrize(
    ("values", "ctype", "fragment"),
    [
        ("1 ('mean') | 1 ('sum')", "int64_t", "value 1 of 'reduction' is listed twice ('mean' and 'sum')"),
        ("0 ('mean') | 1 ('mean')", "int64_t", "value name 'mean' of 'reduction' is listed twice"),
        (
            "0 ('none') | 99999999999999999999999999 ('mean')",
            "int64_t",
            "value 99999999999999999999999999 of 'reduction' is beyond its C type int64_t "
            "(-9223372036854775808..9223372036854775807)",
        ),
        ("-1 ('none') | 1 ('mean')", "uint64_t", "value -1 of 'reduction' is beyond its C type uint64_t (0.."),
    ],
    ids=["duplicate-value", "duplicate-name", "beyond-int64", "negative-uint64"],
)
def test_a_duplicate_or_out_of_range_value_is_an_error(tmp_path: Path, values: str, ctype: str, fragment: str) -> None:
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    doc = seed.replace(_SEED_VALUES, values).replace("reduction (int64_t,", f"reduction ({ctype},")
    with pytest.raises(DocError) as info:
        _import(tmp_path, doc, ".txt")
    assert info.value.line == 27 and info.value.message.startswith(fragment), str(info.value)
    assert not (tmp_path / "spec.yaml").exists()


@pytest.mark.parametrize(
    ("old", "new", "line", "fragment"),
    [
        ("  • target (", "  • delete (", 24, "parameter name: 'delete' is a C++ keyword"),
        ("  • target (", "  • NULL (", 24, "parameter name: 'NULL' is a macro of"),
        ("  • gradOutput (", "  • grädOutput (", 18, "parameter name: 'grädOutput' is not a valid C identifier"),
        ("  • target (", "  • self (", 24, "duplicate parameter name 'self' (also the parameter at line 21)"),
        ("  • target (", "  • stream (", 24, "parameter name: 'stream' is reserved"),
    ],
    ids=["keyword", "macro", "not-ascii", "duplicate", "reserved"],
)
def test_a_parameter_name_the_loader_refuses_is_an_error(
    tmp_path: Path, old: str, new: str, line: int, fragment: str
) -> None:
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    assert old in seed
    with pytest.raises(DocError) as info:
        _import(tmp_path, seed.replace(old, new, 1), ".txt")
    assert (info.value.line, info.value.message.startswith(fragment)) == (line, True), str(info.value)
    assert not (tmp_path / "spec.yaml").exists()


def test_a_markdown_parameter_name_the_loader_refuses_is_an_error(tmp_path: Path) -> None:
    md = markdown(_scaled()).replace("weightOptional", "delete")
    row = next(i for i, ln in enumerate(md.split("\n")) if "delete（aclTensor*）" in ln) + 1
    with pytest.raises(DocError) as info:
        _import(tmp_path, md)
    assert (info.value.line, info.value.message) == (
        row - 1,
        "parameter name: 'delete' is a C++ keyword; choose another name (a spec cannot name a parameter so)",
    )
    twice = markdown(_scaled()).replace("weightOptional", "self")
    with pytest.raises(DocError) as info:
        _import(tmp_path, twice)
    assert info.value.message.startswith("duplicate parameter name 'self' (also the parameter at line ")


@pytest.mark.parametrize("kind", ["device", "directory", "missing-folder"])
def test_an_output_path_problem_names_the_out_path_and_is_no_document_error(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = {"device": "/dev/null", "directory": str(tmp_path), "missing-folder": str(tmp_path / "no" / "s.yaml")}[kind]
    why = {
        "device": "is not a regular file (a device, FIFO or socket)",
        "directory": "is a directory, not a spec file",
        "missing-folder": "its folder does not exist",
    }[kind]
    doc = str(SEEDS / "aclnnSoftMarginLossBackward.txt")
    for force in ([], ["--force"]):
        assert main(["import", doc, "--out", out, *force]) == 2
        assert capsys.readouterr().err.splitlines() == [f"error: --out {out}: {why}; nothing was written"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("seed", sorted(p.name for p in SEEDS.glob("*.txt")))
def test_a_seed_cut_after_any_line_reads_or_gives_a_doc_line_error(tmp_path: Path, seed: str) -> None:
    """A document that stops early (after the parameter bullets, say, and before '• Returns') once raised
    ValueError from max() of an empty sequence; every prefix must read or raise DocError (`doc:line: ...`,
    which the CLI turns into exit 2 before writing)."""
    lines = (SEEDS / seed).read_text().split("\n")
    doc, cat = tmp_path / seed, catalogue()
    errors = 0
    for n in range(1, len(lines)):
        doc.write_text("\n".join(lines[:n]) + "\n")
        try:
            parse_doc(doc, cat)
        except DocError as exc:
            assert re.match(rf"^{re.escape(str(doc))}:[0-9]+: \S", str(exc)), str(exc)
            errors += 1
    assert 0 < errors < len(lines) - 1  # the whole document (and so some long prefixes) reads


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_cann_dtypes_opgen_does_not_compute_are_left_out_with_a_comment(tmp_path: Path, fmt: str) -> None:
    """ops-nn's activation-backward documents list COMPLEX64 and COMPLEX128 beside the float types: the import
    refused the whole document; now those are left out of the tensor's dtypes, and a comment says so. A word
    that is no CANN data type at all is still an error at its line."""
    doc = _scaled()
    doc.params[0] = Param(
        "gradOutput", "const aclTensor *", dtypes=("FLOAT", "COMPLEX64", "FLOAT16", "COMPLEX128"), rank=(0, 8)
    )
    write = markdown if fmt == "md" else text
    result = _import(tmp_path, write(doc), suffix=f".{fmt}")
    written = result.path.read_text()
    assert yaml.safe_load(written)["inputs"][0]["dtypes"] == ["FLOAT", "FLOAT16"]
    assert written.count("# the document also lists COMPLEX64, COMPLEX128: no spec dtype names them") == 1
    doc.params[0] = Param("gradOutput", "const aclTensor *", dtypes=("FLOAT", "COMPLEX17"), rank=(0, 8))
    bad = tmp_path / f"bad.{fmt}"
    bad.write_text(write(doc))
    with pytest.raises(DocError, match="unknown data type 'COMPLEX17'"):
        parse_doc(bad, catalogue())


@pytest.mark.parametrize("rank", [(8, 1), (1, 99)])
def test_a_rank_range_no_tensor_can_have_is_a_question(tmp_path: Path, rank: tuple[int, int]) -> None:
    doc = _scaled()
    doc.params[1] = Param("self", "const aclTensor *", dtypes=("FLOAT", "FLOAT16", "BF16"), formats=("ND",), rank=rank)
    result = _import(tmp_path, markdown(doc), family="elementwise")
    spec = yaml.safe_load(result.path.read_text())
    assert spec["inputs"][0]["rank"] == [0, 8]
    assert spec["inputs"][1]["rank"].startswith("QUESTION(doc line")
    assert f"the rank range {rank[0]}-{rank[1]} of 'self'" in spec["inputs"][1]["rank"]
    # the question is the only error the loader reports for it: answering it makes that entry load
    with pytest.raises(SpecErrors) as info:
        load_op_spec(result.path, catalogue())
    assert [e.field for e in info.value.errors if "rank" in e.field] == ["inputs[1].rank"]


def test_an_array_parameter_becomes_an_array_attr_whose_length_is_a_question(tmp_path: Path) -> None:
    seed = (SEEDS / "aclnnSoftMarginLossBackward.txt").read_text()
    for ctype, attr_type in (("aclIntArray*", "int_array"), ("aclBoolArray*", "bool_array")):
        doc = seed.replace("reduction (int64_t, compute input)", f"reduction ({ctype}, compute input)")
        spec = yaml.safe_load(_import(tmp_path, doc, ".txt", family="elementwise", force=True).path.read_text())
        (attr,) = spec["attrs"]
        assert (attr["name"], attr["type"]) == ("reduction", attr_type)
        assert "values" not in attr and "default" not in attr
        assert attr["length"] == "QUESTION(doc line 27): the lengths 'reduction' accepts: n or [lo, hi] within 1..8"


def test_the_prototype_decides_the_order_and_the_table_is_matched_by_name(tmp_path: Path) -> None:
    md = markdown(_scaled())
    # the table lists self before gradOutput; the prototype (the C signature) keeps gradOutput first
    first = md.index("<tr>", md.index("gradOutput（aclTensor*）") - 200)
    second = md.index("<tr>", md.index("self（aclTensor*）") - 200)
    end = md.index("</tr>", second) + len("</tr>")
    row_grad, row_self = md[first:second], md[second:end]
    md = md[:first] + row_self + "\n" + row_grad + md[end:]
    assert md.index("self（aclTensor*）") < md.index("gradOutput（aclTensor*）")
    spec = yaml.safe_load(_import(tmp_path, md).path.read_text())
    assert [i["name"] for i in spec["inputs"]] == ["gradOutput", "self", "weightOptional"]
    assert spec["inputs"][1]["formats"] == ["ND", "NCHW"]


def test_a_dtype_word_with_a_chinese_data_type_suffix_is_the_dtype(tmp_path: Path) -> None:
    md = markdown(_scaled()).replace("FLOAT32、FLOAT16、BFLOAT16", "FLOAT32数据类型、FLOAT16类型、BFLOAT16", 1)
    spec = yaml.safe_load(_import(tmp_path, md).path.read_text())
    assert spec["inputs"][0]["dtypes"] == ["FLOAT", "FLOAT16", "BF16"]
    slashed = markdown(_scaled()).replace("FLOAT32、FLOAT16、BFLOAT16", "FLOAT32 / FLOAT16 / BFLOAT16", 1)
    assert yaml.safe_load(_import(tmp_path, slashed, force=True).path.read_text())["inputs"][0]["dtypes"] == [
        "FLOAT",
        "FLOAT16",
        "BF16",
    ]
    bad = markdown(_scaled()).replace("FLOAT32、FLOAT16、BFLOAT16", "FLOAT32、INT64X类型", 1)
    with pytest.raises(DocError, match="unknown data type 'INT64X'"):
        _import(tmp_path, bad, force=True)


def test_a_python_keyword_parameter_gets_a_spec_name_and_keeps_cann_s_as_header_name(tmp_path: Path) -> None:
    md = markdown(_scaled())
    assert md.count("alpha") >= 2  # the prototype and the table
    spec = yaml.safe_load(_import(tmp_path, md.replace("alpha", "lambda")).path.read_text())
    assert spec["attrs"][0]["name"] == "lambd"
    assert spec["attrs"][0]["header_name"] == "lambda"
    assert spec["attrs"][0]["dtypes"] == ["FLOAT", "INT32"]
    # another Python keyword the same way
    spec = yaml.safe_load(_import(tmp_path, md.replace("alpha", "pass"), force=True).path.read_text())
    assert (spec["attrs"][0]["name"], spec["attrs"][0]["header_name"]) == ("pas", "pass")
    # a C++ keyword cannot be CANN's name either: still refused
    with pytest.raises(DocError, match="'class' is a C\\+\\+ keyword"):
        _import(tmp_path, md.replace("alpha", "class"), force=True)


def _with_error_table(body: str) -> str:
    """The test document with its error-code table's body rows replaced by ``body``."""
    md = markdown(_scaled())
    head = md.index("<th>错误码</th>")
    start = md.index("<tbody>", head) + len("<tbody>")
    return md[:start] + "\n" + body + "\n  " + md[md.index("</tbody>", start) :]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (  # the name and code in a row of their own, their rowspan covering the described rows below
            [
                '<tr><td rowspan="3">ACLNN_ERR_PARAM_INVALID</td><td rowspan="3">161002</td></tr>',
                "<tr><td>类型不支持。</td></tr>",
                "<tr><td>shape不对。</td></tr>",
            ],
            [(161002, "类型不支持。"), (161002, "shape不对。")],
        ),
        (  # the rowspan counted one row short: the lone description is one more case of the code above
            [
                "<tr><td>ACLNN_ERR_PARAM_NULLPTR</td><td>161001</td><td>空指针。</td></tr>",
                '<tr><td rowspan="2">ACLNN_ERR_PARAM_INVALID</td><td rowspan="2">161002</td></tr>',
                "<tr><td>类型不支持。</td></tr>",
                "<tr><td>shape不对。</td></tr>",
            ],
            [(161001, "空指针。"), (161002, "类型不支持。"), (161002, "shape不对。")],
        ),
    ],
)
def test_error_tables_in_the_rowspan_layouts_cann_writes(
    tmp_path: Path, rows: list[str], expected: list[tuple[int, str]]
) -> None:
    result = _import(tmp_path, _with_error_table("\n".join(f"    {r}" for r in rows)))
    assert [(code, desc) for _, code, _, desc in result.doc.statuses] == expected


def test_a_short_error_row_whose_code_is_wrong_is_still_refused(tmp_path: Path) -> None:
    md = _with_error_table('    <tr><td rowspan="2">ACLNN_ERR_PARAM_INVALID</td><td rowspan="2">161003</td></tr>')
    with pytest.raises(DocError, match="error code '161003' and name 'ACLNN_ERR_PARAM_INVALID'"):
        _import(tmp_path, md)


def test_rowspan_zero_spans_to_the_end_of_the_table() -> None:
    from codegen.aclnn_doc.markdown_doc import _tables

    lines = [
        "<table>",
        "<tr><th>a</th><th>b</th></tr>",
        '<tr><td rowspan="0">x</td><td>1</td></tr>',
        "<tr><td>2</td></tr>",
        "<tr><td>3</td></tr>",
        "</table>",
    ]
    (table,) = _tables(lines, 0, len(lines), "t.md")
    assert [cells for _, cells in table.rows] == [["x", "1"], ["x", "2"], ["x", "3"]]


def _as_pipe_table(md: str) -> str:
    """The test document with its parameter table rewritten as a Markdown pipe table (as some ops-nn
    documents write it), indented under the list item as they do."""
    start = md.index("<table", md.index("GetWorkspaceSize\n\n"))
    end = md.index("</table>", start) + len("</table>")
    rows = [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, re.DOTALL)]
        for tr in re.findall(r"<tr>(.*?)</tr>", md[start:end], re.DOTALL)
    ]
    pipe = [f"| {' | '.join(rows[0])} |", "|" + "---|" * len(rows[0])]
    pipe += [f"| {' | '.join(c.replace('|', chr(92) + '|') for c in r)} |" for r in rows[1:]]
    return md[:start] + "\n    ".join(pipe) + md[end:]


def test_a_markdown_pipe_parameter_table_reads_as_the_html_one(tmp_path: Path) -> None:
    md = markdown(_scaled())
    piped = _as_pipe_table(md)
    assert "<th>参数名</th>" not in piped and "| 参数名 |" in piped
    assert "\\|" in piped  # the reduction's value list `0 ('none') | 1 ...` is escaped inside its cell
    # the same spec but for the document lines its questions cite (the pipe table is shorter)
    html_spec = yaml.safe_load(re.sub(r"doc line \d+", "doc line N", _import(tmp_path, md).path.read_text()))
    pipe_text = _import(tmp_path, piped, force=True).path.read_text()
    pipe_spec = yaml.safe_load(re.sub(r"doc line \d+", "doc line N", pipe_text))
    assert pipe_spec["inputs"] == html_spec["inputs"]
    assert pipe_spec["attrs"] == html_spec["attrs"]
    assert pipe_spec["outputs"] == html_spec["outputs"]
    assert pipe_spec["attrs"][1]["values"] == {0: "none", 1: "mean", 2: "sum"}


def test_terms_of_products_outside_the_catalogue_are_left_out(tmp_path: Path) -> None:
    project = Path(__file__).parent.parent / "specs" / "products.yaml"
    own = tmp_path / "products.yaml"
    text = re.sub(r"(?m)^uncatalogued_doc_terms:.*\n", "", project.read_text())
    own.write_text(text.replace("\nproducts:\n", '\nuncatalogued_doc_terms: ["Atlas Z9 系列产品"]\nproducts:\n', 1))
    cat = load_catalogue(own)
    doc = _scaled()
    a2 = "<term>Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>"
    doc.constraints = [
        "- <term>Atlas Z9 系列产品</term>：",  # a limit of the outside product only: not the spec's
        "  - 设定self最后一维为lastDim，其大小须满足：",
        "    $$",
        "    lastDim \\le 8",
        "    $$",
        f"- {a2}、<term>Atlas Z9 系列产品</term>：",  # shared: kept for the catalogued product
        "  - 设定self最后一维为lastDim，其大小须满足：",
        "    $$",
        "    lastDim \\le 64",
        "    $$",
    ]
    md = markdown(doc)
    support = f"- {a2}：支持"
    assert support in md
    md = md.replace(support, f"{support}\n- <term>Atlas Z9 系列产品</term>：支持", 1)
    # a dtype exception of the outside product only is no rule of the spec (nor of every product)
    md = md.replace(
        "- **返回值**", "- <term>Atlas Z9 系列产品</term>：参数`self`的数据类型不支持FLOAT16。\n\n- **返回值**", 1
    )
    path = tmp_path / "doc.md"
    path.write_text(md)
    result = import_doc(path, cat, FAMILIES, tmp_path, out=tmp_path / "spec.yaml")
    written = result.path.read_text()
    spec = yaml.safe_load(written)
    assert "Atlas Z9" not in str(spec["products"])
    assert spec["products"] == list(result.doc.products[0]) and "Ascend910B" in spec["products"]
    assert re.search(r"# doc line \d+: 'Atlas Z9 系列产品' names a product the catalogue does not describe", written)
    assert spec["inputs"][1]["dtypes"] == ["FLOAT", "FLOAT16", "BF16"]
    requires = [c["require"] for c in spec["constraints"]]
    assert requires == ["lastDim <= 64"]
    assert spec["constraints"][0]["products"] == ["Ascend910B"]
    # without the catalogue's entry the term is still refused
    with pytest.raises(DocError, match="unknown product term 'Atlas Z9 系列产品'"):
        import_doc(path, catalogue(), FAMILIES, tmp_path, out=tmp_path / "spec2.yaml")


def test_catalogue_uncatalogued_doc_terms_errors(tmp_path: Path) -> None:
    project = (Path(__file__).parent.parent / "specs" / "products.yaml").read_text()
    project = re.sub(r"(?m)^uncatalogued_doc_terms:.*\n", "", project)
    path = tmp_path / "products.yaml"
    for value, message in (
        ('["Atlas 训练系列产品"]', "names the catalogued product Ascend910"),
        ('["Atlas Z9", "atlas  z9"]', "document term 'atlas  z9' is listed twice"),
    ):
        path.write_text(f"uncatalogued_doc_terms: {value}\n" + project)
        with pytest.raises(SpecErrors, match=message):
            load_catalogue(path)
    path.write_text('uncatalogued_doc_terms: ["Atlas Z9"]\n' + project)
    assert load_catalogue(path).uncatalogued_doc_terms == ("Atlas Z9",)


def test_a_pipe_table_with_short_rules_and_code_style_names(tmp_path: Path) -> None:
    md = markdown(_scaled())
    piped = _as_pipe_table(md)
    rule = next(ln.strip() for ln in piped.split("\n") if ln.strip().startswith("|---|"))
    styled = piped.replace(rule, "|" + ":--|" * (rule.count("|") - 1), 1)
    for name in ("gradOutput", "self", "weightOptional", "alpha", "reduction", "epsilon", "mode", "out"):
        styled = styled.replace(f"| {name}（", f"| `{name}`（", 1)
    styled = styled.replace("<td>ACLNN_ERR_PARAM_NULLPTR</td>", "<td>`ACLNN_ERR_PARAM_NULLPTR`</td>", 1)
    styled = styled.replace("<td>161001</td>", "<td>`161001`</td>", 1)
    assert "| `alpha`（" in styled and "|:--|" in styled and "`161001`" in styled
    result = _import(tmp_path, styled)
    assert [p.name for p in result.doc.params] == [
        "gradOutput",
        "self",
        "weightOptional",
        "alpha",
        "reduction",
        "epsilon",
        "mode",
        "out",
    ]
    assert result.doc.statuses[0][1:3] == (161001, "ACLNN_ERR_PARAM_NULLPTR")


@pytest.mark.parametrize("fmt", ["md", "txt"])
def test_a_tensor_list_parameter_becomes_a_list_tensor(tmp_path: Path, fmt: str) -> None:
    """``aclTensorList *`` inputs and outputs (the foreach APIs) are spec tensors with ``list: true``; the other
    parameters read as they do beside plain tensors."""
    doc = Doc(
        op="ForeachScaledSum",
        params=[
            Param("x1", "const aclTensorList *", dtypes=("FLOAT", "FLOAT16"), formats=("ND",), rank=(0, 8)),
            Param("x2", "const aclTensorList *", dtypes=("FLOAT", "FLOAT16"), formats=("ND",), rank=(0, 8)),
            Param("alpha", "const aclScalar *", dtypes=("FLOAT",)),
            Param("out", "aclTensorList *", output=True, dtypes=("FLOAT", "FLOAT16"), formats=("ND",), rank=(0, 8)),
        ],
    )
    text_doc = markdown(doc) if fmt == "md" else text(doc)
    spec = yaml.safe_load(_import(tmp_path, text_doc, f".{fmt}", family="foreach").path.read_text())
    assert [(t["name"], t.get("list")) for t in spec["inputs"]] == [("x1", True), ("x2", True)]
    assert [(t["name"], t.get("list")) for t in spec["outputs"]] == [("out", True)]
    assert spec["inputs"][0]["dtypes"] == ["FLOAT", "FLOAT16"] and spec["attrs"][0]["type"] == "scalar"


def test_the_a2_product_line_terms_of_cann_docs_name_ascend910b() -> None:
    """CANN's aclnn documents name the Atlas A2 products by several terms (the product line's members joined by
    "/", spaced or not); each resolves to Ascend910B. The longest one, with the A200I A2 Box, was refused."""
    from codegen.aclnn_doc.common import Products
    from codegen.specs import load_project

    products = Products(load_project()[0])
    for term in (
        "Atlas A2 训练系列产品/Atlas A2 推理系列产品",
        "Atlas A2训练系列产品/Atlas A2推理系列产品",
        "Atlas A2 训练系列产品/Atlas 800I A2 推理产品",
        "Atlas A2 训练系列产品/Atlas 800I A2 推理产品/A200I A2 Box 异构组件",
        "Atlas A2 训练系列 / Atlas A2 推理系列",
    ):
        assert products.resolve(term, "doc.md", 1) == "Ascend910B", term
