"""Writers of aclnn API documents in the two formats `opgen import` reads, for tests: ops-nn's Markdown source
(HTML parameter table, ```Cpp prototype, <term> product list, error-code table, constraints with $$ LaTeX)
and its English rendering (• bullets). The wording is the tests' own; only the structure follows the formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: English and Chinese product terms of the catalogue products the tests use (specs/products.yaml).
TERMS_EN = {
    "Ascend910": "Atlas training series products",
    "Ascend910B": "Atlas A2 training series products/Atlas A2 inference series products",
    "Ascend910_93": "Atlas A3 training series products/Atlas A3 inference series products",
    "Ascend950": "Ascend 950PR/Ascend 950DT",
    "Ascend310P": "Atlas inference series products",
}
TERMS_ZH = {
    "Ascend910": "Atlas 训练系列产品",
    "Ascend910B": "Atlas A2 训练系列产品/Atlas A2 推理系列产品",
    "Ascend910_93": "Atlas A3 训练系列产品/Atlas A3 推理系列产品",
    "Ascend950": "Ascend 950PR/Ascend 950DT",
    "Ascend310P": "Atlas 推理系列产品",
}
DOC_DTYPE = {"FLOAT": "FLOAT32", "BF16": "BFLOAT16"}


@dataclass
class Param:
    """One parameter of a test document: ``ctype`` as the prototype writes it (``const aclTensor *``)."""

    name: str
    ctype: str
    output: bool = False
    dtypes: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    rank: tuple[int, int] | None = None
    values: tuple[tuple[int, str], ...] = ()
    usage: str = ""


@dataclass
class Doc:
    """A test document: the op, its parameters, supported and unsupported products, error rows and
    constraint lines (Markdown, below ``## 约束说明``)."""

    op: str
    params: list[Param]
    products: tuple[str, ...] = ("Ascend910B", "Ascend910_93")
    unsupported: tuple[str, ...] = ("Ascend310P",)
    errors: tuple[tuple[str, int, str], ...] = (
        ("ACLNN_ERR_PARAM_NULLPTR", 161001, "必选参数为空指针。"),
        ("ACLNN_ERR_PARAM_INVALID", 161002, "数据类型不在支持范围之内。"),
    )
    constraints: list[str] = field(default_factory=list)
    deterministic: bool = True
    support_table: bool = False


def _doc_dtypes(dtypes: tuple[str, ...], sep: str) -> str:
    return sep.join(DOC_DTYPE.get(d, d) for d in dtypes) if dtypes else "-"


def markdown(doc: Doc) -> str:
    """The document in ops-nn's Markdown format."""
    out = [f"# aclnn{doc.op}", "", "## 产品支持情况", ""]
    if doc.support_table:
        out += ["| 产品 | 是否支持 |", "| :--- | :---: |"]
        out += [f"| <term>{TERMS_ZH[p]}</term> | {'√' if p in doc.products else '×'} |" for p in TERMS_ZH]
    else:
        for p in doc.products:
            out += [f'<!-- npu="{p}" -->', f"- <term>{TERMS_ZH[p]}</term>：支持", "<!-- end -->"]
        for p in doc.unsupported:
            out += [f"- <term>{TERMS_ZH[p]}</term>：不支持"]
    out += ["", "## 功能说明", "", f"- 接口功能：测试用的算子{doc.op}。", "", "## 函数原型", "", "```Cpp"]
    out += [f"aclnnStatus aclnn{doc.op}GetWorkspaceSize("]
    out += [f"    {p.ctype} {p.name}," for p in doc.params]
    out += ["    uint64_t *workspaceSize,", "    aclOpExecutor **executor)", "```", ""]
    out += [f"## aclnn{doc.op}GetWorkspaceSize", "", "- **参数说明**", "", '  <table style="width: 1500px">']
    heads = ["参数名", "输入/输出", "描述", "使用说明", "数据类型", "数据格式", "维度(shape)", "非连续Tensor"]
    out += ["  <thead>", "    <tr>", *[f"      <th>{h}</th>" for h in heads], "    </tr></thead>", "  <tbody>"]
    for p in [*doc.params, Param("workspaceSize", "uint64_t*", True), Param("executor", "aclOpExecutor**", True)]:
        usage = p.usage
        if p.values:
            usage = "支持" + "|".join(f"{v}({n})" for v, n in p.values) + "。" + usage
        cells = [
            f"{p.name}（{p.ctype.replace('const ', '').replace(' ', '')}）",
            "输出" if p.output else "输入",
            f"参数{p.name}的说明。",
            usage or "-",
            _doc_dtypes(p.dtypes, "、"),
            "、".join(p.formats) or "-",
            f"{p.rank[0]}-{p.rank[1]}" if p.rank else "-",
            "√" if "Tensor" in p.ctype else "-",
        ]
        out += ["    <tr>", *[f'      <td class="c">{c}</td>' for c in cells], "    </tr>"]
    out += ["  </tbody>", "  </table>", "", "- **返回值**", "", "  aclnnStatus：返回状态码。", ""]
    out += ["  <table>", "  <thead>", "    <tr><th>返回值</th><th>错误码</th><th>描述</th></tr></thead>", "  <tbody>"]
    for i, (name, code, desc) in enumerate(doc.errors):
        if i and doc.errors[i - 1][:2] == (name, code):  # a rowspan above holds its name and code
            out += [f"    <tr><td>{desc}</td></tr>"]
            continue
        span = 1
        while i + span < len(doc.errors) and doc.errors[i + span][:2] == (name, code):
            span += 1
        attr = f' rowspan="{span}"' if span > 1 else ""
        out += [f"    <tr><td{attr}>{name}</td><td{attr}>{code}</td><td>{desc}</td></tr>"]
    out += ["  </tbody></table>", "", f"## aclnn{doc.op}", "", "- **参数说明**：略。", "", "## 约束说明", ""]
    out += doc.constraints
    out += ["- 确定性计算：", f"  - aclnn{doc.op}默认{'' if doc.deterministic else '非'}确定性实现。", ""]
    out += ["## 调用示例", "", "```Cpp", "int main() { return 0; }", "```", ""]
    return "\n".join(out)


def text(doc: Doc) -> str:
    """The document in the English rendering (bullets; no product support list, no error table)."""
    out = ["[object Object]", "", f"Description: A test operator {doc.op}.", "", "[object Object]", ""]
    out += [f"Each operator has two calls: aclnn{doc.op}GetWorkspaceSize first, then aclnn{doc.op}.", ""]
    out += ["[object Object]", "", "• Parameters", ""]
    for p in doc.params:
        role = "compute output" if p.output else "compute input"
        bits = [f"Parameter {p.name} of the test."]
        if p.rank:
            bits.append(f"The shape supports {p.rank[0]} to {p.rank[1]} dimensions.")
        if p.formats:
            bits.append(f"The can be {', '.join(p.formats)}.")
        if p.values:
            bits.append("Value options: " + " | ".join(f"{v} ('{n}')" for v, n in p.values) + ".")
        if p.dtypes and "Scalar" in p.ctype:
            bits.append(f"The data type can be {', '.join(DOC_DTYPE.get(d, d) for d in p.dtypes)}.")
        line = f"  • {p.name} ({p.ctype.replace('const ', '').replace(' ', '')}, {role}): {' '.join(bits)}"
        out.append(line)
        if p.dtypes and "Tensor" in p.ctype:
            terms = ", ".join(f"[object Object]{TERMS_EN[t]}[object Object]" for t in doc.products)
            out.append(f"    • {terms}: The data type can be {', '.join(DOC_DTYPE.get(d, d) for d in p.dtypes)}.")
    out += [
        "  • workspaceSize (uint64_t*, output): size of the workspace.",
        "  • executor (aclOpExecutor**, output): x.",
    ]
    out += ["", "• Returns", "", "  aclnnStatus: status code. For details, see .", ""]
    out += ["[object Object]", "", "• Parameters", "", "  • workspace (void*, input): address.", ""]
    out += ["• Returns", "", "  aclnnStatus: status code.", "", "[object Object]", ""]
    out += ["• Deterministic compute:", f"  • aclnn{doc.op} defaults to a deterministic implementation.", ""]
    out += ["The following example is for reference only."]
    return "\n".join(out)
