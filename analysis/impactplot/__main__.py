"""python3 -m impactplot FILE ...: the impactplot command."""
import sys

from .cli import main

sys.exit(main())
