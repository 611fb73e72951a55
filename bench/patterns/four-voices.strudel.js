// bench/audio: four voices (bass, chords, lead, pad) with filters, delay and
// reverb. Synthesizers only, so it plays offline.
setcpm(120/4)

// bass: sawtooth through a swept resonant low-pass
$: note("<c2 ab1 f1 g1>*4").s("sawtooth")
  .lpf(sine.range(400, 1200).slow(8)).lpq(8)
  .decay(.2).sustain(.3).gain(.45)

// chords: voiced seventh chords, filtered, with delay and reverb
$: n("<0 1 2 3>").chord("<Cm7 Ab^7 Fm7 G7>").voicing()
  .s("square").struct("x ~ x ~ ~ x ~ x").lpf(2000)
  .decay(.3).sustain(.2).delay(.3).room(.5).gain(.2)

// lead: arpeggio with a dotted-eighth delay
$: note("<[c5 eb5 g5 bb5] [ab4 c5 eb5 g5] [f5 ab5 c6 ab5] [g5 f5 d5 b4]>*2")
  .s("triangle").lpf(3000).decay(.15).sustain(.4)
  .delay(.3).delaytime(.375).delayfeedback(.4).room(.5).gain(.3)

// pad: slow sawtooth chords under a low-pass, long release
$: note("<[c3,eb3,g3,bb3] [ab2,c3,eb3,g3] [f2,ab2,c3,eb3] [g2,b2,d3,f3]>")
  .s("sawtooth").attack(.4).sustain(1).release(.8).lpf(800)
  .room(.5).gain(.12)
