"""Fill in a PDF form: fill_form.py FORM.pdf VALUES.json OUT.pdf"""
import json
import sys


def main(form, values, out):
    with open(values) as f:
        fields = json.load(f)
    print(f"would fill {len(fields)} fields of {form} into {out}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
