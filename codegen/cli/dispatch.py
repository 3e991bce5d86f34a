"""Running one ``opgen`` command: parse the arguments, run the subcommand, and turn its errors into messages
and exit statuses."""

from __future__ import annotations

import sys

from codegen.cli.options import UsageError, apply_spec_dir_defaults
from codegen.cli.parser import _values_joined, build_parser
from codegen.spec.errors import SpecError, SpecErrors

#: What a spec error's summary line adds for the commands that write files (the others write nothing anyway).
_NOTHING_WRITTEN = {command: "; nothing was written" for command in ("generate", "new", "import")}


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 1 check failure or stale output, 2 usage/spec error)."""
    from codegen.build import use_tool_warning_format

    use_tool_warning_format()
    parser = build_parser()
    args, extra = parser.parse_known_args(_values_joined(parser, list(sys.argv[1:] if argv is None else argv)))
    if extra:
        # op names after an option (`check X --quick Y`): argparse leaves those after the first group unparsed
        if isinstance(getattr(args, "ops", None), list) and not any(e.startswith("-") for e in extra):
            args.ops.extend(extra)
        else:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        apply_spec_dir_defaults(args)
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C outside a check run (which prints its own summary)
        print(f"interrupted: opgen {args.command} stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: not an error of the tool
        sys.stdout = None
        return 0
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SpecErrors as exc:
        print(str(exc), file=sys.stderr)
        print(f"{exc.count} spec error(s){_NOTHING_WRITTEN.get(args.command, '')}", file=sys.stderr)
        return 2
    except SpecError as exc:  # a spec problem found after loading (while planning or rendering)
        print(str(exc), file=sys.stderr)
        print(f"1 spec error(s){_NOTHING_WRITTEN.get(args.command, '')}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        from codegen.build import BuildError
        from codegen.generate import GenerateError
        from codegen.render import RenderError
        from codegen.writer import WriteFailed

        if isinstance(exc, (BuildError, RenderError, GenerateError, FileNotFoundError, WriteFailed)):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise
