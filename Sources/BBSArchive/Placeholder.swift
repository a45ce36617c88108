import CLibXML2
import CCurl
import CCmarkGFM
import GRDB
import Mustache
