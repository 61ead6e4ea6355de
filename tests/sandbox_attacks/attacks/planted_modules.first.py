# what: Plants a .pth, sitecustomize, usercustomize and a module wherever a later interpreter looks.
import os
import site
import sys

PAYLOAD = "import os\nos.environ['LEARNAI_PLANTED'] = 'yes'\n"
places = [p for p in sys.path if p and os.path.isdir(p)] + site.getsitepackages() + [site.getusersitepackages()]
for place in places:
    for name, text in (("learnai_planted.pth", "import os; os.environ['LEARNAI_PLANTED'] = 'yes'\n"),
                       ("sitecustomize.py", PAYLOAD), ("usercustomize.py", PAYLOAD),
                       ("learnai_planted.py", "PLANTED = True\n")):
        try:
            os.makedirs(place, exist_ok=True)
            with open(os.path.join(place, name), "a") as handle:
                handle.write(text)
            print("planted", os.path.join(place, name))
        except OSError:
            pass
print("done planting")
