"""``python -m optbb``: the optbb command."""
from .cli import run

run()
