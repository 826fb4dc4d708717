"""``python -m optbb``: the optbb command."""
import sys

from .cli import main

sys.exit(main())
