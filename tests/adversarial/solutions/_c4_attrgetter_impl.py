import operator


def compute(x, y, alpha):
    scaled = operator.methodcaller("mul", alpha)(x)
    return operator.attrgetter("add")(scaled)(y)
