"""``python -m codegen.cli`` is ``opgen``."""

import sys

from codegen.cli import main

sys.exit(main())
