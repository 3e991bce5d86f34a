"""The subcommands that read the specs and act once: ``list``, ``generate``, ``build``, ``new``, ``import`` and
``explain``; each takes its parsed arguments and returns the exit status."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from codegen.cli.options import UsageError, _dtype_names, _family_option, _generated_dir, _load, _select


def cmd_list(args: argparse.Namespace) -> int:
    from codegen.registry import family_names

    catalogue, specs = _load(args)
    print("ops:")
    for name in sorted(specs):
        s = specs[name]
        # a whole-tensor reduction epilogue (compute.reduce) shows as "<family> + sum"
        family = s.family + (" + sum" if getattr(s.compute, "reduce", None) is not None else "")
        print(f"  {name:32s} {s.aclnn_name:36s} family={family:18s} products={','.join(s.products)}")
    print("families:")
    for family in sorted({*family_names(), *(s.family for s in specs.values())}):
        members = sorted(n for n, s in specs.items() if s.family == family)
        print(f"  {family:32s} {len(members)} op(s): {', '.join(members) or '-'}")
    print("products:")
    for p in catalogue.products:
        cores = f"{p.vector_core_num} vector core{'' if p.vector_core_num == 1 else 's'}"
        print(
            f"  {p.name:14s} NpuArch {p.npu_arch}  UB {p.ub_bytes} bytes  {cores}  "
            f"bf16={'yes' if p.bf16 else 'no'}  DataCopyPad={'yes' if p.data_copy_pad else 'no'}"
        )
    return 0


def _generate_command(args: argparse.Namespace) -> str:
    """The ``opgen generate`` command line that writes the tree ``args`` names (its ``--specs``,
    ``--products`` and ``--out``), shell-quoted."""
    import shlex

    words = ["opgen"]
    for flag in ("specs", "products"):
        if getattr(args, flag):
            words += [f"--{flag}", shlex.quote(getattr(args, flag))]
    words.append("generate")
    if args.out:
        words += ["--out", shlex.quote(args.out)]
    return " ".join(words)


def cmd_generate(args: argparse.Namespace) -> int:
    from codegen.generate import run_generate

    if args.check and args.ops:  # the tree's files (OPERATORS.md, the manifest) span every op
        _select(_load(args)[1], args.ops)  # an unknown op is named first
        raise UsageError(
            f"generate --check checks the whole output tree; drop the op names ({' '.join(args.ops)}) "
            "or generate them without --check"
        )
    result = run_generate(
        out=Path(args.out) if args.out else None,
        specs_dir=Path(args.specs) if args.specs else None,
        products_file=Path(args.products) if args.products else None,
        ops=args.ops,
        check=args.check,
        force=args.force,
        prune=args.prune,
        dry_run=args.dry_run,
    )
    report = result.report
    for text in result.warnings:
        print(f"warning: {text}", file=sys.stderr)
    if result.leftovers:
        shown = ", ".join(result.leftovers[:3]) + (", ..." if len(result.leftovers) > 3 else "")
        done = "left (`opgen generate` removes them)" if args.check or result.dry_run else "removed"
        print(
            f"note: {done} {len(result.leftovers)} temporary file(s) of an interrupted opgen write: {shown}",
            file=sys.stderr,
        )
    if args.check:
        if result.clean:
            shown = args.out if args.out else "generated/"
            print(f"{shown} is up to date ({len(report.unchanged)} files)")
            return 0
        for rel in report.stale:
            print(f"stale: {rel}")
        for rel in report.missing:
            print(f"missing: {rel}")
        for rel in report.extra:
            print(f"not produced by any template: {rel}")
        for name in result.orphans:
            print(f"not produced by any spec: {name}/")
        for rel in result.foreign:
            print(f"not written by opgen: {rel}")
        fix = _generate_command(args)
        advice = []
        if report.stale or report.missing:
            advice.append(f"`{fix}` rewrites the stale and missing files")
        if report.extra or result.orphans:
            advice.append(f"`{fix} --prune` removes the files and folders no template or spec produces")
        if result.foreign:
            advice.append(
                "move the files opgen did not write away from its output paths and op folders (it never "
                "overwrites or prunes them)"
            )
        print(f"{args.out or 'generated/'} differs from the specs; to update: {'; '.join(advice)}", file=sys.stderr)
        return 1
    if result.dry_run:
        for rel in report.stale + report.missing:
            print(f"would write {rel}")
    for rel in report.written:
        print(f"wrote {rel}")
    if args.verbose:
        for rel in result.skipped:
            print(f"skipped {rel} (inputs unchanged)")
    if result.dry_run:
        print(
            f"dry run: {len(report.stale) + len(report.missing)} would be written, {len(report.unchanged)} rendered "
            f"and unchanged, {len(result.skipped)} skipped (inputs unchanged); nothing was written or removed"
        )
    else:
        print(
            f"{len(report.written)} written, {len(report.unchanged)} rendered and unchanged, "
            f"{len(result.skipped)} skipped (inputs unchanged)"
        )
    verb = "would move" if result.dry_run else "moved"
    for rel, target in result.moved.items():
        print(f"{verb} {rel} to {target} (the op's folder moved; opgen did not write it or it was changed)")
    for rel, target in result.left.items():
        print(f"warning: left {rel} where it is: the op's folder moved and {target} is taken", file=sys.stderr)
    for name in result.orphans:
        print(f"warning: {name}/ is produced by no spec", file=sys.stderr)
    for rel in result.strays:
        print(f"warning: {rel} is produced by no template", file=sys.stderr)
    if args.prune or result.dry_run:
        for rel in result.prunable:
            if rel in result.pruned:
                print(f"pruned {rel}")
            else:
                print(f"would prune {rel}")
        for rel in result.pruned:
            if rel.endswith("/"):
                print(f"pruned {rel} (empty)")
        for rel, why in result.kept.items():
            print(f"kept {rel} ({why}; remove it by hand if unwanted)", file=sys.stderr)
    elif result.prunable:
        print(
            f"`opgen generate --prune` removes the {len(result.prunable)} file(s) opgen wrote that nothing "
            "produces any more (`--dry-run` lists them)",
            file=sys.stderr,
        )
    for rel in result.foreign:
        print(
            f"error: kept {rel} (it exists and opgen did not write it: no manifest record, no generator banner); "
            "move it away to let opgen write there",
            file=sys.stderr,
        )
    return 1 if result.foreign else 0


def cmd_build(args: argparse.Namespace) -> int:
    from codegen.build import build_op

    _generated_dir(args.generated)
    catalogue, specs = _load(args)
    spec = next(iter(_select(specs, [args.op]).values()))
    product = catalogue.get(args.product)
    if product.name not in spec.products:
        raise UsageError(
            f"{spec.aclnn_name} is not supported on {product.name}; its products: {', '.join(spec.products)} "
            f"({spec.path})"
        )
    built = build_op(
        spec, catalogue.get(args.product), Path(args.generated) if args.generated else None, sanitize=args.sanitize
    )
    print(built.library)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from codegen.new import NewOpError, new_op
    from codegen.paths import project_paths, reference_dir_for

    family = _family_option(args.family)
    specs_dir = Path(args.specs) if args.specs else project_paths().specs
    reference_dir = reference_dir_for(args.specs)  # where `opgen check` reads it from
    try:
        written = new_op(args.op, family or "", specs_dir, reference_dir)
    except NewOpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    print("next: edit both, then `opgen generate` and `opgen check` the op")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from codegen.aclnn_doc import DocError, OutputError, import_doc
    from codegen.paths import project_paths
    from codegen.registry import families
    from codegen.spec import load_catalogue

    family = _family_option(args.family)
    specs_dir = Path(args.specs) if args.specs else project_paths().specs
    catalogue = load_catalogue(Path(args.products) if args.products else specs_dir / "products.yaml")
    try:
        result = import_doc(
            Path(args.doc),
            catalogue,
            tuple(f.name for f in families()),
            specs_dir,
            out=Path(args.out) if args.out else None,
            family=family,
            force=args.force,
        )
    except DocError as exc:
        print(str(exc), file=sys.stderr)
        print("1 document error; nothing was written", file=sys.stderr)
        return 2
    except OutputError as exc:  # the --out path (or specs/<op>.yaml), not the document
        print(f"error: {'--out ' if args.out else ''}{exc}", file=sys.stderr)
        return 2
    print(f"wrote {result.path}")
    for line, q in result.questions:
        print(f"{result.path}:{line}: QUESTION(doc line {q.line}): {q.text}")
    print(f"{len(result.questions)} question(s) to answer in the spec before it loads")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from codegen.explain import explain

    _generated_dir(args.generated)
    catalogue, specs = _load(args)
    spec = next(iter(_select(specs, [args.op]).values()))
    product = catalogue.get(args.product)  # an unsupported product is explained, marked NOT SUPPORTED
    if args.dtype is not None:
        _dtype_names([args.dtype])
        supported = [d.name for d in spec.inputs[0].dtypes_for(product)]
        if args.dtype not in supported:
            raise UsageError(
                f"{spec.aclnn_name} does not compute on {args.dtype} on {product.name}; "
                f"dtypes there: {', '.join(supported)}"
            )
    if args.shape is not None:
        from codegen.explain import parse_shape

        try:
            parse_shape(args.shape)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not args.no_model:
            from codegen.runner.memory import max_call_bytes

            try:  # the model's call is sized against the cap: a cap that is not a number is the user's error
                max_call_bytes()
            except ValueError as exc:
                raise UsageError(str(exc)) from None
    try:
        print(explain(spec, product, args.shape, args.dtype))
        if args.shape is not None and not args.no_model:
            from codegen.explain import model_section

            generated = Path(args.generated) if args.generated else None
            section = model_section(spec, product, args.shape, args.dtype, generated)
            if section:
                print(section)
    except ValueError as exc:
        raise UsageError(f"explain {spec.op} --shape {args.shape}: {exc}") from exc
    return 0
