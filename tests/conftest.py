import os
import sys

# tests import the top-level modules (model, data, loop, ...) the way freeze_study.py does
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
